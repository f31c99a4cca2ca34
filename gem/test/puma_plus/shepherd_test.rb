# frozen_string_literal: true

# The real shepherd executable against a stand-in host (PumaPlus::TestHost) on a real link.sock: its
# workers dialling in, scheduling policies, hooks, stopping, and Ractor slots. Start-up, worker replacement
# and extra slots, and the mold are tested beside their code (shepherd/*_test.rb).

require_relative "shepherd_case"

class PumaPlus::ShepherdTest < PumaPlus::ShepherdCase
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
end
