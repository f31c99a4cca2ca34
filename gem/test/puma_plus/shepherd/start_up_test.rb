# frozen_string_literal: true

# The shepherd's start-up (PumaPlus::Shepherd::StartUp), through the real executable: HELLO and CONFIG,
# preload_app, and exiting 1 on a bad configuration, a refused handshake or an app that fails to load.

require_relative "../shepherd_case"

class PumaPlus::Shepherd::StartUpTest < PumaPlus::ShepherdCase
  def test_shepherd_says_hello_then_sends_the_resolved_config
    _link, hello, config = start_shepherd(%w[-w 2 -t 3 -p 4321])
    assert_equal [PumaPlus::Wire::VERSION, 1, @host.pid, 1], [hello.version, hello.role, hello.pid, hello.generation]
    assert_equal 2, config["workers"]
    assert_equal 3, config["threads"]
    assert_equal ["tcp://0.0.0.0:4321"], config["binds"]
    assert_equal File.join(File.realpath(@app_dir), "config.ru"), File.realpath(config["rackup"])
  end

  def test_preload_app_loads_the_app_once_in_the_shepherd
    _link, _hello, config = start_shepherd(%w[--preload -w 2 -t 1])
    assert_equal true, config["preload_app"]
    accept_workers(2).each do |worker, hello|
      worker.request({})
      assert_equal "loaded in #{@host.pid}, served by #{hello.pid}", worker.response.body
    end
  end

  def test_bad_config_file_exits_1_naming_file_line_and_directive
    FileUtils.mkdir_p(File.join(@app_dir, "config"))
    File.write(File.join(@app_dir, "config", "puma-plus.rb"), "workers 2\nwokers 3\n")
    @host.spawn_shepherd([], chdir: @app_dir)
    link, = @host.accept_link
    goaway = link.read_frame
    assert_equal [Wire::FrameType::GOAWAY, 3], [goaway.type, Wire.decode(goaway).code]
    assert_equal 1, @host.wait_shepherd(5).exitstatus
    assert_includes @host.log, 'puma-plus: config/puma-plus.rb:2: unknown directive "wokers"'
  end

  def test_missing_rackup_exits_1_with_a_clear_error
    @host.spawn_shepherd(["nope.ru"], chdir: @app_dir)
    @host.accept_link
    assert_equal 1, @host.wait_shepherd(5).exitstatus
    assert_match(%r{puma-plus: rackup file not found: .*/app/nope\.ru}, @host.log)
  end

  def test_refused_handshake_exits_1
    @host.spawn_shepherd([], chdir: @app_dir)
    link = @host.accept_raw
    assert_equal Wire::FrameType::HELLO, link.read_frame.type
    link.goaway(2, "version 2 not supported")
    assert_equal 1, @host.wait_shepherd(5).exitstatus
    assert_includes @host.log, "GOAWAY(2) version 2 not supported"
  end

  def test_preloaded_app_that_raises_exits_1_and_logs
    File.write(File.join(@app_dir, "config.ru"), "raise 'boom at load'\n")
    start_shepherd(%w[--preload])
    assert_equal 1, @host.wait_shepherd(5).exitstatus
    assert_includes @host.log, "the app failed to load in the shepherd (preload_app): RuntimeError: boom at load"
    refute @host.link_pending?(0.2), "no worker may be forked"
  end
end
