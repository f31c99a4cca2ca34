# frozen_string_literal: true

# TLS listeners and protocol bundles in the resolved configuration: puma's ssl:// bind and ssl_bind,
# --tls-cert/--tls-key, the development certificate, and the bundle list the host starts in order.

require "test_helper"
require "json"
require "puma_plus/configuration"

class PumaPlus::ConfigurationTlsTest < PumaPlus::TestCase
  def setup
    @dir = Dir.mktmpdir("puma-plus-config")
    File.write(File.join(@dir, "config.ru"), "run ->(_) { [200, {}, []] }\n")
    %w[cert.pem key.pem].each { |f| File.write(File.join(@dir, f), "pem") }
    @env = { "PUMA_PLUS_HOME" => File.join(@dir, "home") }
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def resolve(argv = [], env: {}, file: nil)
    if file
      FileUtils.mkdir_p(File.join(@dir, "config"))
      File.write(File.join(@dir, "config", "puma-plus.rb"), file)
    end
    PumaPlus::Configuration.resolve(argv, env: @env.merge(env), cwd: @dir)
  end

  def ssl(cert, key)
    "ssl://127.0.0.1:9443?#{URI.encode_www_form('cert' => cert, 'key' => key)}"
  end

  def test_ssl_bind_paths_become_absolute_in_the_config_frame
    config = resolve(["-b", "ssl://127.0.0.1:9443?cert=cert.pem&key=key.pem"])
    assert_equal [ssl(File.join(@dir, "cert.pem"), File.join(@dir, "key.pem"))], config.to_h["binds"]
  end

  def test_pumas_ssl_bind_directive_is_the_same_bind
    config = resolve(file: "ssl_bind '127.0.0.1', 9443, { cert: 'cert.pem', key: 'key.pem' }\n")
    assert_equal [ssl(File.join(@dir, "cert.pem"), File.join(@dir, "key.pem"))], config.to_h["binds"]
  end

  def test_tls_flags_give_the_certificate_of_ssl_binds_that_name_none
    config = resolve(["-b", "tcp://127.0.0.1:9292", "-b", "ssl://127.0.0.1:9443", "--tls-cert", "cert.pem",
                      "--tls-key", "key.pem"])
    assert_equal ["tcp://127.0.0.1:9292", ssl(File.join(@dir, "cert.pem"), File.join(@dir, "key.pem"))],
                 config.to_h["binds"]
  end

  def test_tls_flags_without_an_ssl_bind_are_an_error
    error = assert_raises(PumaPlus::ConfigError) { resolve(["--tls-cert", "cert.pem", "--tls-key", "key.pem"]) }
    assert_match(/no ssl:\/\/ bind/, error.message)
  end

  def test_development_makes_a_self_signed_certificate_and_production_refuses_to
    config = resolve(["-b", "ssl://127.0.0.1:9443"])
    home = File.join(@dir, "home", "tls")
    assert_equal [ssl(File.join(home, "localhost.crt"), File.join(home, "localhost.key"))], config.to_h["binds"]
    error = assert_raises(PumaPlus::ConfigError) { resolve(["-b", "ssl://127.0.0.1:9443", "-e", "production"]) }
    assert_match(/no certificate/, error.message)
  end

  def test_a_missing_certificate_file_is_named
    error = assert_raises(PumaPlus::ConfigError) { resolve(["-b", "ssl://127.0.0.1:9443?cert=nope.pem&key=key.pem"]) }
    assert_match(/no such file .*nope\.pem/, error.message)
  end

  def test_unknown_ssl_parameters_are_refused
    assert_raises(PumaPlus::ConfigError) { resolve(["-b", "ssl://127.0.0.1:9443?cert=c&key=k&ca=x"]) }
    assert_raises(PumaPlus::ConfigError) { resolve(["-b", "ssl://127.0.0.1:9443?verify_mode=peer"]) }
  end

  def test_bundles_default_to_h1_and_h2_and_start_h1_last
    assert_equal %w[protocol-h2 protocol-h1], resolve.to_h["bundles"]
    assert_equal %w[protocol-h2 protocol-h3 protocol-h1], resolve(["--bundles", "h3,h1,h2"]).to_h["bundles"]
    assert_equal %w[protocol-h1], resolve(file: "bundles 'h1'\n").to_h["bundles"]
  end

  def test_bundles_must_include_h1_and_name_known_bundles
    assert_raises(PumaPlus::ConfigError) { resolve(["--bundles", "h2,h3"]) }
    assert_raises(PumaPlus::ConfigError) { resolve(["--bundles", "h1,spdy"]) }
  end
end
