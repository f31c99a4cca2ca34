# frozen_string_literal: true

# One slot of a worker process for its whole life: it keeps one Worker::Link dialled in under its thread
# index, and replaces a link that breaks (the host closed it after a protocol error, a write failed) after
# REDIAL_DELAY, doubling up to REDIAL_MAX while links break before the host's WELCOME and starting over at
# REDIAL_DELAY after a link that was established, so the worker never runs on with a slot fewer. It sits
# between the worker (which starts, retires and drains slots) and the link (which serves the requests).
#
# #run blocks in the thread, fiber (`fibers`: a task of the worker's FiberReactor) or Ractor that serves
# the slot; #stop and #close_if_idle come from another thread of the same Ractor. A stopped slot dials no
# more links: its link sends GOAWAY(0) once idle (after the request it may be serving) and #run returns
# when the host closes it; that is how both TERM and the retirement of an extra slot (docs/PROTOCOL.md,
# "Extra slots") end a slot.

require_relative "../log"

module PumaPlus
  class Worker
    class Slot
      # Seconds before a broken link is replaced, doubling up to REDIAL_MAX while no link is established.
      REDIAL_DELAY = 0.1
      REDIAL_MAX = 5.0

      # A new thread named +name+ that runs +on_thread_start+, then the block, then +on_thread_exit+ (puma's
      # before_thread_start and before_thread_exit): a slot's thread, or the fiber slots' one
      # (FiberReactor). A hook that raises is logged under +context+ and the next one still runs; the
      # thread serves on (as puma's thread pool).
      def self.thread_with_hooks(name, on_thread_start, on_thread_exit, context, log)
        run_hooks = lambda do |hooks, directive|
          hooks.each do |hook|
            hook.call
          rescue StandardError, ScriptError => e
            Log.exception("#{context}: #{directive} hook raised", e, log)
          end
        end
        Thread.new do
          Thread.current.name = name
          run_hooks.call(on_thread_start, "before_thread_start")
          yield
        ensure
          run_hooks.call(on_thread_exit, "before_thread_exit")
        end
      end

      # +thread_index+: the slot's index in HELLO (≥ threads for an extra slot). +on_thread_start+,
      # +on_thread_exit+: callables run in the slot's thread when it starts and before it ends (puma's
      # before_thread_start, before_thread_exit). +reactor+: the worker's FiberReactor when the slot is a
      # fiber (its hooks are then the reactor's), else nil. +link_options+: the keywords of Link.new other
      # than thread_index (app:, prototype:, worker_index:, path:, ...).
      def initialize(thread_index:, log: $stderr, on_thread_start: [], on_thread_exit: [], reactor: nil,
                     **link_options)
        @reactor = reactor
        @thread_index = thread_index
        @log = log
        @on_thread_start = on_thread_start
        @on_thread_exit = on_thread_exit
        @link_options = link_options.merge(thread_index: thread_index, log: log)
        @context = "worker #{link_options[:worker_index]} thread #{thread_index}"
        @lock = Mutex.new
        @link = nil
        @stopping = false
      end

      attr_reader :thread_index

      # Runs the slot in a new thread of the calling Ractor, or as a fiber of the reactor. Returns self.
      def start
        return tap { @thread = @reactor.spawn { run } } if @reactor

        @thread = Slot.thread_with_hooks("puma-plus link #{@thread_index}", @on_thread_start, @on_thread_exit,
                                         @context, @log) { run }
        self
      end

      # Waits until the thread (or fiber) #start began has ended.
      def join
        @thread.join
      end

      # Whether the thread (or fiber) #start began has ended.
      def done?
        !@thread.alive?
      end

      # Serves until the slot is stopped and its link has ended, or a link ends for good (the host refused
      # it or cannot be reached). Never raises.
      def run
        delay = REDIAL_DELAY
        loop do
          link = Link.new(**@link_options)
          stopping = @lock.synchronize do
            @link = link
            link.stop if @stopping
            @stopping
          end
          break if link.run || stopping || @lock.synchronize { @stopping }

          # A link the host welcomed served: its break is a new one, not the next of a run of failed dials.
          delay = REDIAL_DELAY if link.link_id
          Log.line("#{@context}: link broke; dialling in again in #{delay} s", @log)
          sleep delay
          delay = [delay * 2, REDIAL_MAX].min
        end
      end

      # Dials no more links and asks the current one to leave: GOAWAY(0) now when idle, else right after
      # the request it is serving.
      def stop
        @lock.synchronize do
          @stopping = true
          @link&.stop
        end
      end

      # Closes the current link now if it is idle, else right after its response (the end of a drain).
      def close_if_idle
        @lock.synchronize { @link }&.close_if_idle
      end
    end
  end
end
