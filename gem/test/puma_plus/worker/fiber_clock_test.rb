# frozen_string_literal: true

# Claims about the GVL wait of fiber slots (station "worker" of the request path, docs/METRICS.md "GVL wait on
# fiber slots"): a fiber's wait to run counts, for each of the scheduler's waits, the time from when it was
# ready (a timer due, a socket reported by the reactor's select, an unblock) to its resumption, the time
# another fiber held the thread; a long one is logged, at most once per period. Real Async reactors run
# here (Worker::FiberReactor), with real sockets and a fiber that blocks the thread with a busy loop.

require "test_helper"
require "socket"
require "stringio"
require "puma_plus/worker"
require "puma_plus/worker/fiber_reactor"

class PumaPlus::Worker::FiberClockTest < PumaPlus::TestCase
  GvlClock = PumaPlus::Worker::GvlClock

  def setup
    @log = StringIO.new
    @reactor = PumaPlus::Worker::FiberReactor.new(log: @log, context: "worker 3").start
  end

  def teardown
    @reactor.stop
  end

  # Holds the calling thread (and so every other fiber of the reactor) for +seconds+ without yielding.
  def block_thread(seconds)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
    nil while Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
  end

  # Runs the blocks as fibers of the reactor and returns what each returned.
  def in_fibers(*blocks)
    results = Array.new(blocks.size)
    blocks.each_with_index.map { |block, i| @reactor.spawn { results[i] = block.call } }.each(&:join)
    results
  end

  def test_a_sleep_that_ended_while_another_fiber_held_the_thread_counts_the_lateness_as_wait
    sleeper, blocker = in_fibers(
      -> { sleep 0.05; GvlClock.wait_ns },
      -> { sleep 0.01; block_thread(0.25); GvlClock.wait_ns }
    )
    assert_operator sleeper, :>=, 150_000_000, "the sleeper was due at 50 ms and ran at about 260 ms"
    assert_operator sleeper, :<, 300_000_000, "its lateness counted once (Async's sleep is a timed block)"
    assert_operator blocker, :<, 50_000_000, "the blocker was never kept from running"
  end

  def test_sockets_ready_at_one_wakeup_wait_for_the_fibers_resumed_before_them
    pairs = Array.new(2) { UNIXSocket.pair }
    waits = in_fibers(
      -> { pairs[0][0].read(1); block_thread(0.2); GvlClock.wait_ns },
      -> { pairs[1][0].read(1); block_thread(0.2); GvlClock.wait_ns },
      -> { pairs.each { |_, writer| writer.write("x") }; nil } # both readable before the next select
    )
    assert_operator waits[0..1].max, :>=, 150_000_000, "the fiber resumed second waited for the first's 200 ms"
    assert_operator waits[0..1].min, :<, 50_000_000
  end

  def test_an_unblocked_fiber_waits_until_the_unblocking_fiber_lets_go_of_the_thread
    queue = Thread::Queue.new
    popper, = in_fibers(
      -> { queue.pop; GvlClock.wait_ns },
      -> { queue << 1; block_thread(0.2); nil }
    )
    assert_operator popper, :>=, 150_000_000
  end

  def test_a_fiber_kept_from_running_for_long_is_logged_once_per_period
    in_fibers(
      -> { sleep 0.01; sleep 0.01 },
      -> { block_thread(0.15); sleep 0.001; block_thread(0.15) }
    )
    lines = @log.string.lines.grep(/a fiber slot waited \d+ ms to run after it was ready: the app blocks the thread/)
    assert_equal 1, lines.size, @log.string
    assert_match(/\Apuma-plus: worker 3: /, lines.first)
  end

  def test_a_fiber_slot_reads_its_own_wait_and_a_plain_thread_reads_none
    fiber, = in_fibers(-> { [GvlClock.measuring?, GvlClock.wait_ns] })
    assert_equal [true, 0], [fiber[0], fiber[1].clamp(0, 0)]
    assert_nil PumaPlus::Worker::FiberClock.wait_ns
  end
end
