# frozen_string_literal: true

# The Rack handler turns Rack 2.2 / Rails 6.1 server options into puma-plus flags (the exec itself is
# covered by the packaging and Rails integration tests).

require "test_helper"
require "tmpdir"
require "rack/handler/puma_plus"

class Rack::Handler::PumaPlusTest < PumaPlus::TestCase
  def test_rack_finds_the_handler_by_name
    assert_equal Rack::Handler::PumaPlus, Rack::Handler.get("puma_plus")
  end

  def test_host_port_environment_and_rackup_become_flags
    Dir.mktmpdir do |dir|
      rackup = File.join(dir, "config.ru")
      File.write(rackup, "run ->(_) { [200, {}, []] }\n")
      flags = Rack::Handler::PumaPlus.flags(Host: "localhost", Port: 3000, environment: "production", config: rackup)
      assert_equal ["-b", "tcp://127.0.0.1:3000", "-e", "production", rackup], flags
    end
  end

  def test_ipv6_hosts_get_brackets_and_threads_and_workers_pass_through
    flags = Rack::Handler::PumaPlus.flags(Host: "::1", Port: 0, Threads: "0:4", Workers: "2")
    assert_equal ["-b", "tcp://[::1]:0", "-t", "0:4", "-w", "2"], flags
  end

  def test_no_host_or_port_leaves_the_binds_to_the_config_file
    assert_equal [], Rack::Handler::PumaPlus.flags({})
  end
end
