# frozen_string_literal: true

# The one thread of a worker process whose slots are fibers (`fibers`, docs/CONFIG.md): it runs socketry
# Async's reactor, which is Ruby's fiber scheduler on that thread, and runs each slot (Worker::Slot#run,
# hence its Worker::Link) as an Async task there. The link's socket, the app it calls and the app's own
# IO, sleeps and locks then wait through the scheduler, so a waiting fiber holds up none of the others. It
# sits between the worker (which starts, retires and drains slots from its own threads) and the slots.
#
# Lifecycle: #start runs the thread (and the before_thread_start hooks in it); #spawn, from any thread,
# starts a block as a task and returns a Task to join; #stop, once every slot has ended, ends the reactor
# and runs the before_thread_exit hooks. A slot's fiber must not be closed from another thread: its link
# is shut down instead (Link#close_if_idle), which wakes it through the reactor.
#
# The GVL wait each fiber slot reports is its wait to run on this thread (Worker::FiberClock).

require "async"
require_relative "fiber_clock"

module PumaPlus
  class Worker
    class FiberReactor
      # A task #spawn started, seen from other threads as a Thread is: #join waits for its end, #alive?.
      class Task
        def initialize
          @done = Thread::Queue.new
        end

        # Waits until the task has ended. Returns self.
        def join
          @done.pop
          self
        end

        # Whether the task still runs.
        def alive?
          !@done.closed?
        end

        # The task ended (called in it, last).
        def finish
          @done.close
        end
      end

      # +log+, +context+: where and as whom this reactor logs. +on_thread_start+, +on_thread_exit+: puma's
      # before_thread_start and before_thread_exit hooks, run once in the reactor's thread (the only thread
      # the fiber slots run on) when it starts and before it ends.
      def initialize(log:, context:, on_thread_start: [], on_thread_exit: [])
        @log = log
        @context = context
        @on_thread_start = on_thread_start
        @on_thread_exit = on_thread_exit
        @clock = FiberClock.new(log: log, context: context)
        @jobs = Thread::Queue.new
      end

      # Starts the reactor's thread. Returns self.
      def start
        @thread = Slot.thread_with_hooks("puma-plus fibers", @on_thread_start, @on_thread_exit, @context, @log) { run }
        self
      end

      # Runs +block+ as a task of the reactor, its wait counted by the clock from 0 (FiberClock#track).
      # Returns a Task. Any thread.
      def spawn(&block)
        task = Task.new
        @jobs << [task, block]
        task
      end

      # Takes no more tasks and waits until the reactor has ended; call once every spawned task has ended.
      def stop
        @jobs.close
        @thread.join
      end

      private

      # Serves #spawn's queue until #stop closes it. The reactor ends when this task and every task it
      # started have ended.
      def run
        reactor = Async::Reactor.new(selector: @clock.selector(Async::Reactor.selector))
        @clock.install(reactor.scheduler)
        reactor.run do |parent|
          while (job = @jobs.pop)
            run_task(parent, *job)
          end
        end
      rescue Exception => e # rubocop:disable Lint/RescueException -- the slots' thread: report, never vanish silently
        Log.exception("#{@context}: the fiber reactor failed", e, @log)
      ensure
        reactor&.close
      end

      # Runs +block+ as a child task of +parent+; +task+ learns when it has ended.
      def run_task(parent, task, block)
        parent.async do
          @clock.track
          block.call
        ensure
          task.finish
        end
      end
    end
  end
end
