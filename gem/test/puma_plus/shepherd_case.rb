# frozen_string_literal: true

# The base of the shepherd's tests (shepherd_test.rb and shepherd/*_test.rb): the real shepherd executable
# started against a stand-in host (PumaPlus::TestHost) on a real link.sock, in an app directory of its own.

require "test_helper"
require "json"

class PumaPlus::ShepherdCase < PumaPlus::TestCase
  Wire = PumaPlus::Wire

  APP = <<~RUBY
    LOADED_IN = Process.pid
    run ->(env) { [200, { "content-type" => "text/plain" }, ["loaded in \#{LOADED_IN}, served by \#{Process.pid}"]] }
  RUBY

  def setup
    @host = PumaPlus::TestHost.new
    @app_dir = File.join(@host.dir, "app")
    FileUtils.mkdir_p(@app_dir)
    File.write(File.join(@app_dir, "config.ru"), APP)
  end

  def teardown
    @host.cleanup
  end

  # Spawns the shepherd and completes its handshake; returns [shepherd HostEnd, Hello, CONFIG hash].
  def start_shepherd(argv = [], env: {})
    @host.spawn_shepherd(argv, chdir: @app_dir, env: env)
    link, hello = @host.accept_link
    config = link.read_frame
    assert_equal Wire::FrameType::CONFIG, config.type, @host.log
    [link, hello, JSON.parse(config.payload)]
  end

  # Accepts +count+ worker links; returns [[HostEnd, Hello], ...].
  def accept_workers(count)
    Array.new(count) { @host.accept_link }
  end

  # Waits until the shepherd's log has +text+ (a line is written before the shepherd acts on what it says).
  def await_log(text)
    assert eventually { @host.log.include?(text) }, "no #{text.inspect} in:\n#{@host.log}"
  end

  def extra_slots(link, count)
    link.io.write(Wire::ExtraSlots.new(count: count).encode)
  end
end
