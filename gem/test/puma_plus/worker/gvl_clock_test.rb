# frozen_string_literal: true

# Worker::GvlClock: on Ruby 3.2+ (the C extension built by script/native) a thread's GVL wait grows while
# other threads hold the GVL with Ruby code and not while they sleep; on Ruby 3.1 nothing is loaded and the
# wait is unknown (nil), never 0.

require "test_helper"
require "puma_plus/worker"
require "puma_plus/worker/gvl_clock"

class PumaPlus::Worker::GvlClockTest < PumaPlus::TestCase
  GvlClock = PumaPlus::Worker::GvlClock
  MEASURABLE = Gem::Version.new(RUBY_VERSION) >= Gem::Version.new("3.2")

  # script/native builds the extension for every Ruby >= 3.2 it is given; a checkout without that build
  # says so instead of failing.
  def setup
    return unless MEASURABLE && !GvlClock::AVAILABLE

    skip "gvl_clock is not built for Ruby #{RUBY_VERSION}: run script/native #{RbConfig.ruby}"
  end

  def test_on_ruby_3_1_nothing_is_loaded_and_the_wait_is_unknown
    skip "Ruby #{RUBY_VERSION} measures GVL wait" if MEASURABLE
    refute GvlClock::AVAILABLE
    refute defined?(PumaPlus::Worker::NativeGvlClock), "the extension must not be loaded on Ruby 3.1"
    refute GvlClock.start
    refute GvlClock.measuring?
    assert_nil GvlClock.wait_ns
  end

  def test_a_thread_waits_for_the_gvl_while_another_runs_ruby_code
    skip "Ruby #{RUBY_VERSION} has no GVL instrumentation API (3.2+)" unless MEASURABLE
    assert GvlClock.start
    assert GvlClock.measuring?
    waits = 2.times.map { Thread.new { measured { burn_cpu(0.03) } } }.map(&:value)
    # Two threads of 5 x 30 ms of CPU each under one GVL: each waits for the other's share, about 150 ms.
    assert waits.all? { |wait| wait > 30_000_000 }, "GVL waits #{waits.inspect} ns"
  end

  def test_a_thread_does_not_wait_for_the_gvl_while_the_others_sleep
    skip "Ruby #{RUBY_VERSION} has no GVL instrumentation API (3.2+)" unless MEASURABLE
    GvlClock.start
    waits = 4.times.map { Thread.new { measured { sleep 0.03 } } }.map(&:value)
    assert waits.all? { |wait| wait < 5_000_000 }, "GVL waits #{waits.inspect} ns"
  end

  def test_the_wait_is_per_thread_and_only_grows
    skip "Ruby #{RUBY_VERSION} has no GVL instrumentation API (3.2+)" unless MEASURABLE
    GvlClock.start
    before = GvlClock.wait_ns
    busy = Thread.new { burn_cpu(0.05) }
    sleep 0.01 # the other thread holds the GVL: this one waits for it when it wakes
    busy.join
    waited = GvlClock.wait_ns - before
    assert_operator waited, :>, 20_000_000, "woke 10 ms into the other thread's 50 ms of CPU"
    # A new thread reads its own wait (its start, for this thread to let go), not this thread's.
    assert_operator Thread.new { GvlClock.wait_ns }.value, :<, waited / 4
  end

  private

  # The calling thread's GVL wait while it runs the block five times, ns.
  def measured
    before = GvlClock.wait_ns
    5.times { yield }
    GvlClock.wait_ns - before
  end

  # Spins until this thread has used +seconds+ of CPU, holding the GVL (the bench app's /mix).
  def burn_cpu(seconds)
    deadline = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) + seconds
    sum = 0
    sum += 1 until Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) >= deadline
    sum
  end
end
