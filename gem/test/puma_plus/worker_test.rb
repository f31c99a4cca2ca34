# frozen_string_literal: true

# A real forked worker process against a stand-in host on a real link.sock: its threads dial in, SIGTERM
# drains them (GOAWAY, finish the current request, exit), SIGINT is ignored, and it exits when its links end.

require "test_helper"

class PumaPlus::WorkerTest < PumaPlus::TestCase
  Wire = PumaPlus::Wire

  def setup
    @host = PumaPlus::TestHost.new
    @log_reader, @log_writer = IO.pipe
    @release_reader, @release_writer = IO.pipe
  end

  def teardown
    if @pid
      begin
        Process.kill("KILL", @pid)
        Process.wait(@pid)
      rescue Errno::ESRCH, Errno::ECHILD
        nil
      end
    end
    @host.cleanup
  end

  # Forks a worker serving +app+ with +threads+ links; returns its pid.
  def fork_worker(app, threads: 2, rackup: nil, hooks: [], fibers: false)
    @pid = fork do
      @log_reader.close
      worker = PumaPlus::Worker.new(link_path: @host.link_path, index: 4, threads: threads, workers: 1,
                                    app: app, rackup: rackup, on_worker_boot: hooks, log: @log_writer,
                                    fibers: fibers)
      exit!(worker.run)
    end
    @log_writer.close
    @pid
  end

  def wait_worker(seconds)
    eventually(seconds) { Process.wait2(@pid, Process::WNOHANG)&.last }.tap { |status| @pid = nil if status }
  end

  def log
    @log_reader.read_nonblock(65_536, exception: false).then { |s| s.is_a?(String) ? s : "" }
  end

  def test_every_thread_dials_in_with_its_indexes
    fork_worker(->(_env) { [200, {}, ["hi"]] }, threads: 3)
    hellos = Array.new(3) { @host.accept_link.last }
    assert_equal [[4, 0], [4, 1], [4, 2]], hellos.map { |h| [h.worker_index, h.thread_index] }.sort
    assert_equal [@pid], hellos.map(&:pid).uniq
  end

  def test_worker_exits_0_when_the_host_ends_all_its_links
    fork_worker(->(_env) { [200, {}, ["hi"]] })
    links = Array.new(2) { @host.accept_link.first }
    links.each { |link| link.goaway(0) }
    assert_equal 0, wait_worker(5)&.exitstatus
  end

  def test_a_link_the_host_closes_without_goaway_is_replaced_by_a_new_one
    fork_worker(->(_env) { [200, {}, ["hi"]] })
    links = Array.new(2) { @host.accept_link }
    broken = links.first.first
    broken_thread = links.first.last.thread_index
    broken.close
    _link, hello = @host.accept_link
    assert_equal [4, broken_thread], [hello.worker_index, hello.thread_index]
    assert_match(/worker 4 thread #{broken_thread}: link broke; dialling in again/, log)
  end

  def test_term_sends_goaway_on_idle_links_and_the_worker_exits_once_the_host_closes_them
    fork_worker(->(_env) { [200, {}, ["hi"]] })
    links = Array.new(2) { @host.accept_link.first }
    Process.kill("TERM", @pid)
    links.each do |link|
      frame = link.read_frame
      assert_equal [Wire::FrameType::GOAWAY, 0], [frame.type, Wire.decode(frame).code]
      link.close
    end
    assert_equal 0, wait_worker(5)&.exitstatus
  end

  def test_term_lets_the_current_request_finish_before_the_worker_exits
    started_reader, started_writer = IO.pipe
    release = @release_reader
    fork_worker(->(_env) { started_writer.write("s"); release.read(1); [200, {}, ["finished"]] }, threads: 2)
    (busy, _), (idle, _) = Array.new(2) { @host.accept_link }
    busy.request({})
    started_reader.read(1) # the app is now blocked
    Process.kill("TERM", @pid)
    # The idle link's GOAWAY shows the worker has taken in the TERM while the other request runs.
    assert_equal [Wire::FrameType::GOAWAY, 0], idle.read_frame.then { |f| [f.type, Wire.decode(f).code] }
    assert process_alive?(@pid), "worker exited with a request in progress"
    @release_writer.write("x")
    response = busy.response
    assert_equal [200, "finished"], [response.status, response.body]
    assert_equal Wire::FrameType::GOAWAY, busy.read_frame.type
    [busy, idle].each(&:close)
    assert_equal 0, wait_worker(5)&.exitstatus
  end

  def test_idle_links_are_closed_after_the_drain_grace_even_if_the_host_keeps_them_open
    fork_worker(->(_env) { [200, {}, []] }, threads: 1)
    link, = @host.accept_link
    Process.kill("TERM", @pid)
    assert_equal Wire::FrameType::GOAWAY, link.read_frame.type
    assert_nil link.read_frame # the worker closed it after DRAIN_GRACE
    assert_equal 0, wait_worker(5)&.exitstatus
  end

  # ---- fiber slots (`fibers`) ----

  def test_fiber_slots_dial_in_with_their_indexes_and_wait_for_the_app_concurrently_on_one_thread
    app = ->(env) { sleep 0.3; [200, {}, ["#{env['puma_plus.slot_kind']} #{Thread.current.object_id}"]] }
    fork_worker(app, threads: 3, fibers: true)
    links = Array.new(3) { @host.accept_link }
    assert_equal [[4, 0], [4, 1], [4, 2]], links.map { |_, hello| [hello.worker_index, hello.thread_index] }.sort
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    links.each { |link, _| link.request({}) }
    bodies = links.map { |link, _| link.response.body }
    elapsed = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
    assert_operator elapsed, :<, 0.8, "three 300 ms sleeps took #{elapsed} s: the fibers did not wait together"
    assert_equal ["fiber"], bodies.map { |body| body.split.first }.uniq
    assert_equal 1, bodies.map { |body| body.split.last }.uniq.size, "the fiber slots ran on more than one thread"
  end

  def test_term_drains_fiber_slots_finishing_the_current_request
    started_reader, started_writer = IO.pipe
    release = @release_reader
    fork_worker(->(_env) { started_writer.write("s"); release.read(1); [200, {}, ["finished"]] }, threads: 2,
                fibers: true)
    (busy, _), (idle, _) = Array.new(2) { @host.accept_link }
    busy.request({})
    started_reader.read(1) # the app now waits for the release (through the fiber scheduler)
    Process.kill("TERM", @pid)
    assert_equal [Wire::FrameType::GOAWAY, 0], idle.read_frame.then { |f| [f.type, Wire.decode(f).code] }
    @release_writer.write("x")
    assert_equal [200, "finished"], busy.response.then { |r| [r.status, r.body] }
    assert_equal Wire::FrameType::GOAWAY, busy.read_frame.type
    [busy, idle].each(&:close)
    assert_equal 0, wait_worker(5)&.exitstatus
  end

  def test_idle_fiber_slots_are_ended_after_the_drain_grace_even_if_the_host_keeps_them_open
    fork_worker(->(_env) { [200, {}, []] }, threads: 2, fibers: true)
    links = Array.new(2) { @host.accept_link.first }
    Process.kill("TERM", @pid)
    links.each { |link| assert_equal Wire::FrameType::GOAWAY, link.read_frame.type }
    links.each { |link| assert_nil link.read_frame } # the worker ended them after DRAIN_GRACE
    assert_equal 0, wait_worker(5)&.exitstatus
  end

  def test_a_fiber_slot_whose_link_the_host_closes_dials_in_again
    fork_worker(->(_env) { [200, {}, ["hi"]] }, threads: 2, fibers: true)
    links = Array.new(2) { @host.accept_link }
    links.first.first.close
    _link, hello = @host.accept_link
    assert_equal [4, links.first.last.thread_index], [hello.worker_index, hello.thread_index]
  end

  def test_a_forked_workers_timing_points_are_on_the_hosts_monotonic_clock
    fork_worker(->(env) { sleep 0.02; [200, {}, [env["puma_plus.queue_time_ns"].to_s]] }, threads: 1)
    link, hello = @host.accept_link
    assert_equal PumaPlus::Wire::VERSION, hello.version
    runnable = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
    dispatched = runnable + 1_500
    link.request({}, headers_parsed_ns: runnable, runnable_ns: runnable, dispatched_ns: dispatched)
    response = link.response
    received = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
    head = response.head
    assert_equal "1500", response.body
    assert_operator runnable, :<=, head.app_called_ns
    assert_operator head.app_returned_ns - head.app_called_ns, :>=, 20_000_000
    assert_operator head.app_returned_ns, :<=, received
  end

  def test_sigint_is_ignored
    fork_worker(->(_env) { [200, {}, ["still here"]] }, threads: 1)
    link, = @host.accept_link
    Process.kill("INT", @pid)
    link.request({})
    assert_equal "still here", link.response.body
  end

  def test_app_raising_at_load_exits_1_and_logs_the_exception
    rackup = File.join(@host.dir, "broken.ru")
    File.write(rackup, "raise 'no database'\n")
    fork_worker(nil, rackup: rackup)
    assert_equal 1, wait_worker(5)&.exitstatus
    assert_match(/puma-plus: worker 4 failed to boot: RuntimeError: no database\n    .*broken\.ru:1/, log)
    refute @host.link_pending?(0.1), "a worker that failed to boot must not dial in"
  end

  def test_on_worker_boot_hooks_run_with_the_index_before_any_link_dials_in
    marker = File.join(@host.dir, "booted")
    fork_worker(->(_env) { [200, {}, []] }, threads: 1, hooks: [->(index) { File.write(marker, index.to_s) }])
    @host.accept_link
    assert_equal "4", File.read(marker)
  end

  def test_thread_whose_link_cannot_connect_logs_and_the_worker_exits
    @host.cleanup # no link.sock any more
    fork_worker(->(_env) { [200, {}, []] }, threads: 2)
    assert_equal 0, wait_worker(5)&.exitstatus
    assert_match(/worker 4 thread [01]: cannot reach the host at .*link\.sock/, log)
  end
end
