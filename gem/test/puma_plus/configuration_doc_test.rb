# frozen_string_literal: true

# Holds docs/CONFIG.md and the code to each other: every documented flag parses, every documented
# directive exists in the DSL with its documented default, and the CONFIG frame has exactly the
# documented keys with their documented defaults.

require "test_helper"
require "json"
require "tmpdir"
require "puma_plus/configuration"

class PumaPlus::ConfigurationDocTest < PumaPlus::TestCase
  DOC = File.read(File.expand_path("../../../docs/CONFIG.md", __dir__))

  # The rows of the markdown table that follows +heading+.
  def table(heading)
    section = DOC.split(/^## /).find { |s| s.start_with?(heading) } or flunk("no section #{heading}")
    section.lines.select { |l| l.start_with?("| ") }.drop(2).map { |l| l.split("|").map(&:strip)[1..] }
  end

  def test_every_documented_flag_is_accepted
    table("Command line").each do |flag_cell, _meaning, _default|
      usages = flag_cell.scan(/`([^`]+)`/).flatten
      placeholder = usages.last.split(" ", 2)[1] # `-b`, `--bind URI`: both take URI
      usages.each do |usage|
        flag = usage.split(" ", 2).first
        value = { "URI" => "tcp://127.0.0.1:1", "PORT" => "1", "N" => "1", "MIN:MAX" => "1:2", "PATH" => "c.rb",
                  "ENV" => "test", "TOKEN" => "t", "NAMES" => "h1,h2", "NAME" => "n", "FORMAT" => "json", "DIR" => "." }[placeholder]
        argv = [flag, value].compact
        PumaPlus::CommandLine.new(argv) # raises ConfigError when the flag is unknown
      end
    end
  end

  def test_every_documented_directive_exists_and_its_example_evaluates
    Dir.mktmpdir do |dir|
      table("Config file directives").each do |directive, _type, _default, _env, example|
        name = directive.delete("`")
        assert PumaPlus::DSL.public_method_defined?(name), "DSL lacks #{name}"
        path = File.join(dir, "example.rb")
        File.write(path, "#{example.delete('`')}\n")
        PumaPlus::DSL.evaluate(path)
      end
    end
  end

  def test_documented_defaults_match_the_code
    defaults = table("Config file directives").to_h { |d, _t, default, _e, _x| [d.delete("`"), default.delete("`")] }
    d = PumaPlus::Configuration::DEFAULTS
    assert_equal d[:binds].first, defaults["bind"]
    assert_equal "#{d[:min_threads]}, #{d[:threads]}", defaults["threads"]
    %i[workers persistent_timeout first_data_timeout write_timeout header_timeout max_pipelined_requests
       worker_boot_timeout shutdown_timeout worker_timeout worker_shutdown_timeout websocket_max_message
       websocket_outbound_limit websocket_ping_interval websocket_max_connections webtransport_sessions_per_connection
       webtransport_max_sessions webtransport_streams_per_session webtransport_max_message
       webtransport_outbound_limit].each do |key|
      assert_equal d[key].to_s, defaults[key.to_s], key
    end
    assert_equal [d[:environment], d[:rackup]], [defaults["environment"], defaults["rackup"]]
    assert_equal "none", defaults["http_content_length_limit"]
    assert_nil d[:max_connections]
    assert_equal "derived from the open-file limit", defaults["max_connections"]
    %i[log_requests server_timing quiet].each { |key| assert_equal d[key].to_s, defaults[key.to_s], key }
    assert_equal d[:log_format], defaults["log_format"]
    assert_equal d[:worker_scheduling], defaults["worker_scheduling"]
  end

  def test_every_reported_puma_directive_is_documented
    section = DOC.split(/^## /).find { |s| s.start_with?("Puma names") }
    documented = section.scan(/`([a-z_!]+)`/).flatten.map(&:to_sym)
    assert_equal PumaPlus::DSL::UNSUPPORTED.keys.sort, (documented & PumaPlus::DSL::UNSUPPORTED.keys).sort
  end

  # The default column of "The CONFIG frame" is what the gem sends when nothing is set; the host's
  # HostConfig takes the same values for a missing key (HostConfigTest holds it to the same column).
  def test_config_frame_sends_the_documented_defaults
    Dir.mktmpdir do |dir|
      sent = PumaPlus::Configuration.resolve([], env: {}, cwd: dir).to_h
      table("The CONFIG frame").each do |key_cell, _type, default_cell, _from|
        key = key_cell.delete("`")
        documented = JSON.parse(default_cell.delete_prefix("`").delete_suffix("`").sub("<working directory>", dir))
        if documented.nil?
          assert_nil sent.fetch(key), key
        else
          assert_equal documented, sent.fetch(key), key
        end
      end
    end
  end

  def test_config_frame_has_exactly_the_documented_keys
    documented = table("The CONFIG frame").map { |key, *| key.delete("`") }
    Dir.mktmpdir do |dir|
      assert_equal documented.sort, PumaPlus::Configuration.resolve([], env: {}, cwd: dir).to_h.keys.sort
    end
  end
end
