# frozen_string_literal: true

# The development certificate: made once under $PUMA_PLUS_HOME/tls, EC P-256, for localhost, and reused.

require "test_helper"
require "openssl"
require "puma_plus/dev_certificate"

class PumaPlus::DevCertificateTest < PumaPlus::TestCase
  def setup
    @home = Dir.mktmpdir("puma-plus-home")
    @env = { "PUMA_PLUS_HOME" => @home }
  end

  def teardown
    FileUtils.rm_rf(@home)
  end

  def test_generates_an_ec_certificate_for_localhost_once_and_reuses_it
    logged = []
    cert_path, key_path = PumaPlus::DevCertificate.ensure(env: @env, log: ->(line) { logged << line })
    assert_equal File.join(@home, "tls", "localhost.crt"), cert_path
    cert = OpenSSL::X509::Certificate.new(File.read(cert_path))
    key = OpenSSL::PKey.read(File.read(key_path))
    assert_kind_of OpenSSL::PKey::EC, key
    assert cert.check_private_key(key)
    assert_match(/DNS:localhost/, cert.extensions.find { |e| e.oid == "subjectAltName" }.value)
    assert_equal 0o600, File.stat(key_path).mode & 0o777
    assert_equal 1, logged.size

    again = PumaPlus::DevCertificate.ensure(env: @env, log: ->(line) { logged << line })
    assert_equal [cert_path, key_path], again
    assert_equal cert.to_pem, File.read(cert_path), "a second start must reuse the certificate"
    assert_equal 1, logged.size
  end

  def test_an_unreadable_certificate_is_replaced
    dir = File.join(@home, "tls")
    FileUtils.mkdir_p(dir)
    File.write(File.join(dir, "localhost.crt"), "garbage")
    File.write(File.join(dir, "localhost.key"), "garbage")
    cert_path, = PumaPlus::DevCertificate.ensure(env: @env)
    OpenSSL::X509::Certificate.new(File.read(cert_path)) # parses now
  end
end
