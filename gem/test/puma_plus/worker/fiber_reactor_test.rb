# frozen_string_literal: true

# Claims about the thread that runs a worker's fiber slots (station "worker" of the request path,
# docs/CONFIG.md "Fiber slots"): tasks spawned from other threads run as fibers of that one thread under a
# fiber scheduler, each joinable like a thread, and puma's thread hooks run once, in that thread.

require "test_helper"
require "stringio"
require "puma_plus/worker"
require "puma_plus/worker/fiber_reactor"

class PumaPlus::Worker::FiberReactorTest < PumaPlus::TestCase
  def test_tasks_spawned_from_other_threads_run_as_fibers_of_one_thread_with_its_hooks_run_once_there
    events = Thread::Queue.new
    reactor = PumaPlus::Worker::FiberReactor.new(log: StringIO.new, context: "worker 0",
                                                 on_thread_start: [-> { events << [:start, Thread.current] }],
                                                 on_thread_exit: [-> { events << [:exit, Thread.current] }]).start
    tasks = Array.new(3) do |i|
      Thread.new { reactor.spawn { sleep 0.2; events << [i, Thread.current, !Fiber.scheduler.nil?] } }.value
    end
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    tasks.each(&:join)
    assert_operator Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, :<, 0.5, "the three sleeps overlap"
    refute tasks.any?(&:alive?)
    reactor.stop
    seen = Array.new(events.size) { events.pop }
    threads = seen.map { |event| event[1] }.uniq
    assert_equal 1, threads.size
    refute_same Thread.current, threads.first
    assert_equal [:start, 0, 1, 2, :exit], seen.map(&:first).sort_by { |tag| { start: -1, exit: 9 }.fetch(tag, tag) }
    assert_equal [true], seen.select { |event| event.size == 3 }.map(&:last).uniq, "the tasks ran under a scheduler"
  end

  def test_a_hook_that_raises_is_logged_and_the_tasks_still_run
    log = StringIO.new
    reactor = PumaPlus::Worker::FiberReactor.new(log: log, context: "worker 2",
                                                 on_thread_start: [-> { raise "no pool" }]).start
    ran = false
    reactor.spawn { ran = true }.join
    reactor.stop
    assert ran
    assert_match(/worker 2: before_thread_start hook raised: RuntimeError: no pool/, log.string)
  end
end
