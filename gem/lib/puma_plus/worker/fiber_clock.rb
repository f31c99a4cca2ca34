# frozen_string_literal: true

# The "GVL wait" of a fiber slot (`fibers`, docs/METRICS.md "GVL wait on fiber slots"): how long each fiber
# was ready to run but not running, because the one thread all fiber slots of a worker share was running
# another fiber. Worker::GvlClock.wait_ns reads it for the calling fiber, so Worker::Link reports it in
# RESPONSE_HEAD exactly as a thread's GVL wait. It sits inside the worker's FiberReactor: it times the
# reactor's wake-ups and the moments its scheduler resumes a fiber.
#
# A fiber waits in one of the scheduler's two waits, io_wait and block, and each tells when it became ready:
# - io_wait: its socket became ready no later than the reactor's select returned (the readiness may be
#   older, if it came while the thread was busy, so this is a lower bound);
# - block (a Mutex, Queue or ConditionVariable of another fiber or thread): when #unblock was called; one
#   that timed out, a sleep among them (Async's kernel_sleep is a block with the sleep as its timeout, so a
#   sleep is timed here and only here), when the timer was due.
# The fiber's wait is the time from then to its resumption. A wait of WARN_AFTER_NS or more means the app
# blocks the thread (a CPU-bound loop, a C call that does not yield to the scheduler): it is logged, at
# most once per WARN_EVERY_NS.
#
# Threading: #selected and the scheduler hooks run on the reactor's thread; #unblocked may come from any
# thread (guarded by @lock).

require_relative "../log"

module PumaPlus
  class Worker
    class FiberClock
      # The fiber-local (Thread#[] is per fiber) holding a tracked fiber's wait so far, ns.
      WAIT_NS = :puma_plus_fiber_wait_ns
      # A single wait from this long (100 ms) is logged as the app blocking the thread.
      WARN_AFTER_NS = 100_000_000
      # At most one such log line per 10 s.
      WARN_EVERY_NS = 10_000_000_000

      # Wraps the reactor's NIO::Selector in the four calls Async 1.30's reactor makes (as its own
      # Async::Debug::Selector does); #select notes when it returned.
      class Selector
        def initialize(selector, clock)
          @selector = selector
          @clock = clock
        end

        def register(io, interests)
          @selector.register(io, interests)
        end

        def wakeup
          @selector.wakeup
        end

        def close
          @selector.close
        end

        def select(timeout = nil)
          @selector.select(timeout)
        ensure
          @clock.selected
        end
      end

      # The ns the calling fiber has waited to run since FiberClock#track began it, an Integer that only
      # grows; nil in a fiber or thread it does not track.
      def self.wait_ns
        Thread.current[WAIT_NS]
      end

      # +log+, +context+: where and as whom the blocking warning is logged. +now+: the clock, ns
      # (CLOCK_MONOTONIC unless a test injects one).
      def initialize(log:, context:, now: -> { Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond) })
        @log = log
        @context = context
        @now = now
        @selected_at = now.call
        @warned_at = nil
        @lock = Mutex.new
        @unblocked = {}.compare_by_identity
      end

      # CLOCK_MONOTONIC ns when the reactor's select last returned.
      attr_reader :selected_at

      # The reactor's selector, +inner+ timed by this clock (Async::Reactor.new(selector: ...)).
      def selector(inner)
        Selector.new(inner, self)
      end

      # Hooks the two waits of +scheduler+ (an Async::Scheduler, on the reactor's thread) to this clock.
      def install(scheduler)
        scheduler.extend(hooks)
      end

      # Starts counting the calling fiber's wait at 0.
      def track
        Thread.current[WAIT_NS] = 0
      end

      # The reactor's select returned: sockets it reports became ready no later than now.
      def selected
        @selected_at = @now.call
      end

      # +fiber+ was unblocked (from any thread): it is ready from now.
      def unblocked(fiber)
        at = @now.call
        @lock.synchronize { @unblocked[fiber] = at }
      end

      # When #unblocked last readied +fiber+ (ns, forgotten here), or nil.
      def take_unblocked(fiber)
        @lock.synchronize { @unblocked.delete(fiber) }
      end

      # In the fiber just resumed: adds the time since +ready_at+ (ns, or nil when unknown) to its wait, and
      # warns when it is long.
      def resumed(ready_at)
        return unless ready_at

        wait = @now.call - ready_at
        return unless wait.positive?

        Thread.current[WAIT_NS] += wait if Thread.current[WAIT_NS]
        warn(wait) if wait >= WARN_AFTER_NS
      end

      private

      def warn(wait)
        now = @now.call
        return if @warned_at && now - @warned_at < WARN_EVERY_NS

        @warned_at = now
        Log.line("#{@context}: a fiber slot waited #{wait / 1_000_000} ms to run after it was ready: the app blocks " \
                 "the thread all fiber slots share (a CPU-bound loop, or a C call that does not yield to the " \
                 "fiber scheduler); every request of this worker waits with it (logged at most every " \
                 "#{WARN_EVERY_NS / 1_000_000_000} s)", @log)
      end

      # The module #install extends the scheduler with: each wait calls the scheduler's own, then tells this
      # clock when the fiber became ready.
      def hooks
        clock = self
        now = @now
        Module.new do
          define_method(:io_wait) do |io, events, timeout = nil|
            super(io, events, timeout)
          ensure
            clock.resumed(clock.selected_at)
          end

          define_method(:block) do |blocker, timeout = nil|
            due = timeout && now.call + (timeout * 1e9).to_i
            begin
              super(blocker, timeout)
            ensure
              clock.resumed(clock.take_unblocked(Fiber.current) || due)
            end
          end

          define_method(:unblock) do |blocker, fiber|
            clock.unblocked(fiber)
            super(blocker, fiber)
          end
        end
      end
    end
  end
end
