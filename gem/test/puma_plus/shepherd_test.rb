# frozen_string_literal: true

# The real shepherd executable against a stand-in host (PumaPlus::TestHost) on a real link.sock: the
# handshake and CONFIG, forking and replacing workers, back-off on boot failure, and stopping.

require "test_helper"
require "json"

class PumaPlus::ShepherdTest < PumaPlus::TestCase
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

  def test_shepherd_says_hello_then_sends_the_resolved_config
    _link, hello, config = start_shepherd(%w[-w 2 -t 3 -p 4321])
    assert_equal [PumaPlus::Wire::VERSION, 1, @host.pid, 1], [hello.version, hello.role, hello.pid, hello.generation]
    assert_equal 2, config["workers"]
    assert_equal 3, config["threads"]
    assert_equal ["tcp://0.0.0.0:4321"], config["binds"]
    assert_equal File.join(File.realpath(@app_dir), "config.ru"), File.realpath(config["rackup"])
  end

  def test_every_thread_of_every_worker_dials_in_and_serves_the_app
    _link, _hello, _config = start_shepherd(%w[-w 2 -t 2])
    links = accept_workers(4)
    hellos = links.map(&:last)
    assert_equal [[0, 0], [0, 1], [1, 0], [1, 1]], hellos.map { |h| [h.worker_index, h.thread_index] }.sort
    assert(hellos.all? { |h| h.version == PumaPlus::Wire::VERSION && h.role.zero? && h.generation == 1 })
    assert_equal 2, hellos.map(&:pid).uniq.size
    refute_includes hellos.map(&:pid), @host.pid, "the app must never run in the shepherd"
    worker, hello = links.first
    worker.request({})
    response = worker.response
    assert_equal 200, response.status
    assert_equal "loaded in #{hello.pid}, served by #{hello.pid}", response.body
  end

  # The scheduling policy of every thread of +pid+, by the number the kernel reports (0 normal, 3 batch).
  def policies(pid)
    Dir["/proc/#{pid}/task/*/stat"].map { |stat| File.read(stat).split(") ", 2).last.split[38].to_i }.uniq
  end

  def test_worker_threads_run_under_the_batch_policy_and_the_shepherd_under_the_normal_one
    _link, = start_shepherd(%w[-w 1 -t 2])
    links = accept_workers(2)
    worker_pid = links.first.last.pid
    assert_equal [3], policies(worker_pid)
    assert_equal [0], policies(@host.pid)
  end

  def test_worker_scheduling_normal_leaves_the_workers_under_the_normal_policy
    File.write(File.join(@app_dir, "normal.rb"), "worker_scheduling :normal\n")
    _link, = start_shepherd(%w[-w 1 -t 2 -C normal.rb])
    links = accept_workers(2)
    assert_equal [0], policies(links.first.last.pid)
  end

  def test_preload_app_loads_the_app_once_in_the_shepherd
    _link, _hello, config = start_shepherd(%w[--preload -w 2 -t 1])
    assert_equal true, config["preload_app"]
    accept_workers(2).each do |worker, hello|
      worker.request({})
      assert_equal "loaded in #{@host.pid}, served by #{hello.pid}", worker.response.body
    end
  end

  def test_workers_zero_still_forks_one_worker
    _link, _hello, config = start_shepherd(%w[-w 0 -t 1])
    assert_equal 1, config["workers"]
    _worker, hello = @host.accept_link
    refute_equal @host.pid, hello.pid
  end

  def test_dead_worker_is_replaced_with_the_same_index_and_logged
    start_shepherd(%w[-w 2 -t 1])
    first = accept_workers(2).to_h { |_link, hello| [hello.worker_index, hello.pid] }
    Process.kill("KILL", first[1])
    _link, replacement = @host.accept_link
    assert_equal 1, replacement.worker_index
    refute_equal first[1], replacement.pid
    await_log("puma-plus: worker 1 (pid #{first[1]}) exited on signal KILL; starting a replacement")
  end

  def test_goaway_stops_the_workers_and_the_shepherd_exits_0
    link, = start_shepherd(%w[-w 2 -t 1])
    pids = accept_workers(2).map { |_l, hello| hello.pid }
    link.goaway(0, "shutdown")
    status = @host.wait_shepherd(8)
    assert status&.success?, "shepherd did not exit 0: #{status.inspect}\n#{@host.log}"
    assert(pids.none? { |pid| process_alive?(pid) })
  end

  def test_host_link_eof_stops_the_workers_and_the_shepherd_exits_0
    link, = start_shepherd(%w[-w 1 -t 1])
    _worker, hello = @host.accept_link
    link.close
    status = @host.wait_shepherd(8)
    assert status&.success?, "shepherd did not exit 0: #{status.inspect}\n#{@host.log}"
    refute process_alive?(hello.pid)
  end

  def test_worker_that_ignores_term_is_killed_after_worker_shutdown_timeout
    File.write(File.join(@app_dir, "config.ru"), "Signal.trap('TERM') {}\nrun ->(_) { [200, {}, []] }\n")
    File.write(File.join(@app_dir, "stop.rb"), "worker_shutdown_timeout 5\n")
    link, = start_shepherd(%w[-w 1 -t 1 -C stop.rb])
    _worker, hello = @host.accept_link
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    link.goaway(0)
    status = @host.wait_shepherd(9)
    elapsed = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
    assert status&.success?, @host.log
    assert_operator elapsed, :>=, 4.5
    refute process_alive?(hello.pid)
    assert_includes @host.log, "did not stop within 5 s; killing it"
  end

  def test_shepherd_ignores_sigint
    link, = start_shepherd(%w[-w 1 -t 1])
    worker, hello = @host.accept_link
    Process.kill("INT", -@host.pid) # Ctrl-C reaches the whole process group
    # Each process acts after the signal was sent: the shepherd's select loop (the thread an INT would
    # interrupt) forks a second worker, and the worker serves a request.
    link.io.write(Wire::WorkerCount.new(count: 2).encode)
    assert_equal 1, @host.accept_link.last.worker_index
    worker.request({})
    assert_equal 200, worker.response.status
    assert process_alive?(@host.pid)
    assert process_alive?(hello.pid)
  end

  def test_app_that_raises_at_load_backs_off_instead_of_fork_bombing
    # Each boot attempt appends the monotonic clock (one clock for every process) to a file, then raises.
    File.write(File.join(@app_dir, "config.ru"), <<~'RUBY')
      File.write("attempts", "#{Process.clock_gettime(Process::CLOCK_MONOTONIC)}\n", mode: "a"); raise "cannot connect to the database"
    RUBY
    start_shepherd(%w[-w 1 -t 1])
    attempts_path = File.join(@app_dir, "attempts")
    attempts = -> { File.exist?(attempts_path) ? File.readlines(attempts_path).map { |line| Float(line) } : [] }
    assert eventually(8) { attempts.call.size >= 3 }, "three boot attempts expected:\n#{@host.log}"
    first, second, third = attempts.call
    assert_operator second - first, :>=, 1.0, "the first back-off is 1 s"
    assert_operator third - second, :>=, 2.0, "the second back-off is 2 s"
    log = @host.log
    assert_includes log, "RuntimeError: cannot connect to the database"
    assert_includes log, "config.ru:1"
    assert_match(/worker 0 failed to boot \(2 in a row\); next attempt in 2(\.0)? s/, log)
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

  def test_on_worker_boot_runs_in_each_worker_with_its_index
    FileUtils.mkdir_p(File.join(@app_dir, "config"))
    File.write(File.join(@app_dir, "config", "puma-plus.rb"), <<~RUBY)
      workers 2
      threads 1, 1
      before_fork { $stderr.puts "before_fork in \#{Process.pid}" }
      on_worker_boot { |index| $stderr.puts "booted worker \#{index} in \#{Process.pid}" }
    RUBY
    start_shepherd
    hellos = accept_workers(2).map(&:last)
    log = @host.log
    assert_includes log, "before_fork in #{@host.pid}"
    hellos.each { |h| assert_includes log, "booted worker #{h.worker_index} in #{h.pid}" }
  end

  def test_workers_of_a_killed_shepherd_stop_instead_of_living_on_as_orphans
    start_shepherd(%w[-w 1 -t 1])
    worker, hello = @host.accept_link
    Process.kill("KILL", @host.pid)
    goaway = worker.read_frame
    assert_equal [Wire::FrameType::GOAWAY, 0], [goaway.type, Wire.decode(goaway).code]
    worker.close
    assert eventually(5) { !process_alive?(hello.pid) }, "orphaned worker did not exit"
    assert_includes @host.log, "worker 0: the shepherd is gone; stopping"
  end

  def test_preloaded_app_that_raises_exits_1_and_logs
    File.write(File.join(@app_dir, "config.ru"), "raise 'boom at load'\n")
    start_shepherd(%w[--preload])
    assert_equal 1, @host.wait_shepherd(5).exitstatus
    assert_includes @host.log, "the app failed to load in the shepherd (preload_app): RuntimeError: boom at load"
    refute @host.link_pending?(0.2), "no worker may be forked"
  end

  # -- extra slots (EXTRA_SLOTS, docs/PROTOCOL.md "Extra slots") --------------------------------------

  # /held tells the test it started by creating the file "started", then waits until the test writes to
  # the FIFO "release": a request that is running for as long as the test needs.
  HELD_APP = <<~RUBY
    run lambda { |env|
      if env["PATH_INFO"] == "/held"
        File.write("started", "")
        File.read("release")
      end
      [200, {}, ["\#{Process.pid}"]]
    }
  RUBY

  def extra_slots(link, count)
    link.io.write(Wire::ExtraSlots.new(count: count).encode)
  end

  def test_extra_slots_are_spread_over_the_workers_and_dial_in_with_thread_indexes_from_threads
    link, = start_shepherd(%w[-w 2 -t 1])
    # A worker dials in before the shepherd has read its boot byte, and only booted workers get extras.
    accept_workers(2).each { |_worker, hello| await_log("worker #{hello.worker_index} (pid #{hello.pid}) booted in") }
    extra_slots(link, 3)
    hellos = accept_workers(3).map(&:last)
    assert_equal [[0, 1], [0, 2], [1, 1]], hellos.map { |h| [h.worker_index, h.thread_index] }.sort
    await_log("worker 0: extra slots 2 (was 0)")
  end

  def test_a_retired_extra_slot_finishes_its_request_then_sends_goaway_and_the_others_serve_on
    File.write(File.join(@app_dir, "config.ru"), HELD_APP)
    File.mkfifo(File.join(@app_dir, "release"))
    link, = start_shepherd(%w[-w 1 -t 1])
    accept_workers(1)
    extra_slots(link, 2)
    extras = accept_workers(2).to_h { |worker, hello| [hello.thread_index, worker] }
    extras[2].request({ "PATH_INFO" => "/held" })
    assert eventually { File.exist?(File.join(@app_dir, "started")) }, "the app never started /held"
    extra_slots(link, 1)
    await_log("worker 0: extra slots 1 (was 2)")
    File.write(File.join(@app_dir, "release"), "go") # the slot was retired while its request ran
    assert_equal 200, extras[2].response.status, "the running request is served, not dropped"
    goaway = extras[2].read_frame
    assert_equal [Wire::FrameType::GOAWAY, 0], [goaway.type, Wire.decode(goaway).code]
    extras[1].request({})
    assert_equal 200, extras[1].response.status
  end

  def test_a_fiber_worker_dials_in_fiber_slots_and_its_extra_slots_are_fibers_of_the_same_thread
    File.write(File.join(@app_dir, "config.ru"),
               "run ->(env) { [200, {}, [\"\#{env['puma_plus.slot_kind']} \#{Thread.current.object_id}\"]] }\n")
    link, _hello, config = start_shepherd(%w[-w 1 --fibers 2])
    assert_equal 2, config["threads"], "the host is told the slots per worker"
    base = accept_workers(2)
    await_log("worker 0 (pid #{base.first.last.pid}) booted in")
    extra_slots(link, 1)
    extra, hello = @host.accept_link
    assert_equal 2, hello.thread_index
    bodies = (base.map(&:first) + [extra]).map do |worker|
      worker.request({})
      worker.response.body
    end
    assert_equal ["fiber"], bodies.map { |body| body.split.first }.uniq
    assert_equal 1, bodies.map { |body| body.split.last }.uniq.size, "base and extra slots share one thread"
  end

  def test_a_replaced_worker_gets_its_share_of_extra_slots_again
    link, = start_shepherd(%w[-w 1 -t 1])
    accept_workers(1)
    extra_slots(link, 1)
    _worker, extra = @host.accept_link
    Process.kill("KILL", extra.pid)
    hellos = accept_workers(2).map(&:last)
    assert_equal [0, 1], hellos.map(&:thread_index).sort
    refute_includes hellos.map(&:pid), extra.pid
  end

  def test_extra_slots_go_to_booted_workers_and_move_to_a_worker_once_it_has_booted
    # Worker 1 stays in on_worker_boot until the test writes to the FIFO "boot".
    File.mkfifo(File.join(@app_dir, "boot"))
    File.write(File.join(@app_dir, "slow.rb"), "on_worker_boot { |index| File.read('boot') if index == 1 }\n")
    link, = start_shepherd(%w[-w 2 -t 1 -C slow.rb])
    _worker, first = @host.accept_link
    assert_equal 0, first.worker_index
    extra_slots(link, 2)
    early = accept_workers(2).map(&:last)
    assert_equal [[0, 1], [0, 2]], early.map { |h| [h.worker_index, h.thread_index] }.sort,
                 "both extra slots run in the one booted worker"
    File.write(File.join(@app_dir, "boot"), "go")
    later = accept_workers(2).map(&:last) # worker 1 booted: its base slot and its share
    assert_equal [[1, 0], [1, 1]], later.map { |h| [h.worker_index, h.thread_index] }.sort
    await_log("worker 0: extra slots 1 (was 2)") # the shepherd may log it after worker 1's links dial in
  end

  def test_more_workers_respread_the_extra_slots
    link, = start_shepherd(%w[-w 1 -t 1])
    accept_workers(1)
    extra_slots(link, 2)
    accept_workers(2)
    link.io.write(Wire::WorkerCount.new(count: 2).encode)
    hellos = accept_workers(2).map(&:last) # the new worker: its base slot and its one extra
    assert_equal [[1, 0], [1, 1]], hellos.map { |h| [h.worker_index, h.thread_index] }.sort
    await_log("worker 0: extra slots 1 (was 2)")
  end

  # -- ractors (docs/RACK.md "Ractors") ---------------------------------------------------------------

  RACTOR_APP = <<~RUBY
    class Hello
      @calls = []
      class << self
        attr_reader :calls
      end

      def call(env)
        Hello.calls << 1 if env["PATH_INFO"] == "/class-state" # a class ivar: IsolationError in a Ractor
        [200, { "content-type" => "text/plain" }, ["\#{Process.pid} \#{Ractor.current == Ractor.main ? 'main' : 'ractor'}"]]
      end
    end
    run Hello.new
  RUBY

  def test_under_ractors_every_slot_serves_from_a_ractor_including_an_extra_slot
    File.write(File.join(@app_dir, "config.ru"), RACTOR_APP)
    link, _hello, config = start_shepherd(%w[--ractors -w 1 -t 2])
    assert_equal true, config["ractors"]
    links = accept_workers(2)
    extra_slots(link, 1)
    links << @host.accept_link
    assert_equal [0, 1, 2], links.map { |_w, hello| hello.thread_index }.sort
    links.each do |worker, hello|
      worker.request({})
      assert_equal "#{hello.pid} ractor", worker.response.body
    end
  end

  def test_under_ractors_an_isolation_error_in_the_app_is_a_500_and_the_slot_serves_on
    File.write(File.join(@app_dir, "config.ru"), RACTOR_APP)
    start_shepherd(%w[--ractors -w 1 -t 1])
    worker, = @host.accept_link
    worker.request({ "PATH_INFO" => "/class-state" })
    assert_equal 500, worker.response.status
    worker.request({})
    assert_equal 200, worker.response.status
    assert_match(/Ractor::IsolationError: can not get unshareable values from instance variables of classes/, @host.log)
  end

  def test_under_ractors_a_lambda_app_stops_the_shepherd_with_exit_1_naming_the_proc_instead_of_retrying
    @host.spawn_shepherd(%w[--ractors -w 1 -t 1], chdir: @app_dir)
    link, = @host.accept_link
    assert_equal Wire::FrameType::CONFIG, link.read_frame.type
    status = @host.wait_shepherd(8)
    assert_equal 1, status&.exitstatus, @host.log
    assert_match(/worker 0: the app cannot run in Ractors \(ractors\): app: a Proc that is not shareable .*#call/,
                 @host.log)
    refute_includes @host.log, "next attempt in", "no restart can make the app shareable"
  end

  def test_under_ractors_term_sends_goaway_on_every_ractor_link_and_the_worker_exits
    File.write(File.join(@app_dir, "config.ru"), RACTOR_APP)
    link, = start_shepherd(%w[--ractors -w 1 -t 2])
    links = accept_workers(2)
    extra_slots(link, 1)
    links << @host.accept_link
    pid = links.first.last.pid
    Process.kill("TERM", pid)
    links.each do |worker, _hello|
      frame = worker.read_frame
      assert_equal [Wire::FrameType::GOAWAY, 0], [frame.type, Wire.decode(frame).code]
      worker.close
    end
    assert eventually(3) { !process_alive?(pid) }, "the worker did not exit after its Ractor links ended\n#{@host.log}"
  end

  # Sinatra 3.0 would fail every request in a Ractor (its settings are methods defined from Procs of the
  # main Ractor), though its app is a class and so "shareable": it is refused at boot instead.
  def test_under_ractors_a_sinatra_app_stops_the_shepherd_naming_it
    File.write(File.join(@app_dir, "config.ru"), <<~RUBY)
      require "sinatra/base"
      class Shop < Sinatra::Base
        get("/") { "hi" }
      end
      run Shop
    RUBY
    @host.spawn_shepherd(%w[--ractors -w 1 -t 1], chdir: @app_dir)
    link, = @host.accept_link
    assert_equal Wire::FrameType::CONFIG, link.read_frame.type
    status = @host.wait_shepherd(8)
    assert_equal 1, status&.exitstatus, @host.log
    assert_match(/worker 0: the app cannot run in Ractors \(ractors\): app: a Sinatra app is not Ractor-safe/, @host.log)
  end

  def test_under_ractors_a_lowlevel_error_handler_block_is_dropped_with_a_log_line
    File.write(File.join(@app_dir, "config.ru"), RACTOR_APP)
    File.write(File.join(@app_dir, "handler.rb"), "lowlevel_error_handler { |_e| [503, {}, ['sorry']] }\n")
    start_shepherd(%w[--ractors -w 1 -t 1 -C handler.rb])
    worker, = @host.accept_link
    worker.request({ "PATH_INFO" => "/class-state" })
    assert_equal 500, worker.response.status
    assert_includes @host.log, "worker 0: lowlevel_error_handler is not supported with ractors"
  end

  def test_under_ractors_a_preloaded_lambda_app_stops_the_shepherd_with_exit_1_naming_the_proc
    @host.spawn_shepherd(%w[--ractors --preload -w 1 -t 1], chdir: @app_dir)
    link, = @host.accept_link
    assert_equal Wire::FrameType::CONFIG, link.read_frame.type
    status = @host.wait_shepherd(8)
    assert_equal 1, status&.exitstatus, @host.log
    assert_match(/the app cannot run in Ractors \(ractors\): app: a Proc that is not shareable .*use an object with #call/,
                 @host.log)
  end

  # -- fork_worker: the mold (docs/CONFIG.md, "fork_worker and the mold") ------------------------------

  # Rails sets Encoding.default_internal: IOs not in binary mode would then transcode what they write.
  MOLD_CONFIG = <<~RUBY
    Encoding.default_internal = Encoding::UTF_8
    before_refork { $stderr.puts "before_refork in \#{Process.pid}" }
    after_refork { $stderr.puts "after_refork in \#{Process.pid}" }
  RUBY

  def parent_of(pid)
    File.read("/proc/#{pid}/stat").split(") ", 2).last.split(" ")[1].to_i
  end

  # Starts -w 2 -t 1 with +fork_worker+; returns { index => [HostEnd, pid] } once both workers booted.
  def start_mold_shepherd(fork_worker)
    File.write(File.join(@app_dir, "mold.rb"), "#{fork_worker}\n#{MOLD_CONFIG}")
    @shepherd_link, = start_shepherd(%w[-w 2 -t 1 -C mold.rb])
    workers = accept_workers(2).to_h { |link, hello| [hello.worker_index, [link, hello.pid]] }
    workers.each { |index, (_, pid)| await_log("worker #{index} (pid #{pid}) booted in") }
    workers
  end

  # Worker 0 drains its link, becomes the mold, and every worker is forked from it: returns the new
  # workers' [HostEnd, Hello] by index, after the old worker 1 has drained too.
  def follow_refork(first)
    zero_link, zero_pid = first[0]
    assert_equal Wire::FrameType::GOAWAY, zero_link.read_frame&.type, "worker 0 drains its link:\n#{@host.log}"
    zero_link.close
    await_log("mold: ready (pid #{zero_pid}, was worker 0)")
    forked = accept_workers(2).to_h { |link, hello| [hello.worker_index, [link, hello]] }
    one_link, = first[1]
    assert_equal Wire::FrameType::GOAWAY, one_link.read_frame&.type, "the old worker 1 retires once its replacement booted"
    one_link.close
    await_log("refork done")
    forked
  end

  def test_a_refork_makes_worker_0_the_mold_and_every_worker_is_then_forked_warm_from_it_as_the_shepherds_child
    first = start_mold_shepherd("fork_worker 0")
    zero_pid = first[0][1]
    Process.kill("URG", @host.pid) # puma's refork signal (the host forwards it: REFORK)
    forked = follow_refork(first)
    assert_equal [0, 1], forked.keys.sort
    await_log("before_refork in #{zero_pid}")
    await_log("after_refork in #{zero_pid}")
    forked.each_value do |link, hello|
      refute_includes first.values.map(&:last), hello.pid
      # The app was loaded once, in worker 0; the mold's forks serve it without loading it again.
      link.request({})
      assert_equal "loaded in #{zero_pid}, served by #{hello.pid}", link.response.body
      assert eventually { parent_of(hello.pid) == @host.pid }, "worker #{hello.pid} is not the shepherd's child"
    end
    assert_equal @host.pid, parent_of(zero_pid), "the mold is the old worker 0, still the shepherd's"
    assert_match(/puma-plus: mold \(was worker 0\)/, File.read("/proc/#{zero_pid}/cmdline"))
  end

  def test_the_first_worker_to_serve_fork_workers_count_of_requests_asks_for_the_refork_and_only_once
    first = start_mold_shepherd("fork_worker 3")
    zero_link, = first[0]
    3.times do
      zero_link.request({})
      assert_equal 200, zero_link.response.status
    end
    await_log("refork (worker 0 served 3 requests): worker 0")
    forked = follow_refork(first)
    forked.each_value do |link, _hello|
      3.times { link.request({}) && link.response }
      refute link.io.wait_readable(1.5), "a worker forked from the mold asked for a second automatic refork:\n#{@host.log}"
    end
    assert_equal 1, @host.log.scan("served 3 requests").size
  end

  def test_a_scale_up_of_several_workers_forks_every_one_from_the_mold
    first = start_mold_shepherd("fork_worker 0")
    zero_pid = first[0][1]
    Process.kill("URG", @host.pid)
    follow_refork(first)
    @shepherd_link.io.write(Wire::WorkerCount.new(count: 6).encode) # four at once: one batch of fork commands
    added = accept_workers(4)
    assert_equal [2, 3, 4, 5], added.map { |_, hello| hello.worker_index }.sort
    added.each do |link, hello|
      # Without preload_app!, a worker the shepherd forked would load the app itself.
      link.request({})
      assert_equal "loaded in #{zero_pid}, served by #{hello.pid}", link.response.body
      assert eventually { parent_of(hello.pid) == @host.pid }, "worker #{hello.pid} is not the shepherd's child"
    end
    refute_includes @host.log, "workers fork from the shepherd again"
  end

  def test_when_the_mold_dies_the_shepherd_forks_workers_itself_again
    first = start_mold_shepherd("fork_worker 0")
    zero_pid = first[0][1]
    Process.kill("URG", @host.pid)
    forked = follow_refork(first)
    Process.kill("KILL", zero_pid)
    await_log("mold (pid #{zero_pid}) exited on signal KILL; workers fork from the shepherd again")
    _, one = forked[1]
    Process.kill("KILL", one.pid)
    link, replacement = @host.accept_link
    assert_equal 1, replacement.worker_index
    link.request({})
    assert_equal "loaded in #{replacement.pid}, served by #{replacement.pid}", link.response.body,
                 "a worker the shepherd forks loads the app itself (no preload_app)"
  end

  def test_fork_worker_is_off_with_ractors_and_says_why
    File.write(File.join(@app_dir, "mold.rb"), "fork_worker\nractors\n")
    start_shepherd(%w[-w 1 -t 1 -C mold.rb])
    await_log("fork_worker is off: Ractor slots cannot be forked from a running worker; workers fork from the shepherd")
  end
end
