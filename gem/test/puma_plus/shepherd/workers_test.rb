# frozen_string_literal: true

# The shepherd's worker processes (PumaPlus::Shepherd::Workers), through the real executable: forking,
# replacing a dead worker, back-off on boot failure, and the host's extra slots spread over the workers.

require_relative "../shepherd_case"

class PumaPlus::Shepherd::WorkersTest < PumaPlus::ShepherdCase
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
end
