# frozen_string_literal: true

# The CPU scheduling policy a worker process runs under (docs/CONFIG.md, `worker_scheduling`; why batch is
# the default, with the measurements: docs/benchmarks/NOTEBOOK.md, "Worker scheduling").
#
# A request crosses from the host to a worker thread and back. Under Linux's normal policy a worker
# thread that a REQUEST wakes preempts the host at once when they share a core, so the host is switched
# out once per request, in the middle of its event loop's batch of ready connections. Under SCHED_BATCH a
# woken worker thread never preempts: it runs when the host's loop blocks or its time slice ends, and the
# worker then serves every request the host handed it in one turn. The host keeps the normal policy, so
# a new connection or request still preempts a busy worker as before (arrival times and shedding stay
# prompt).
#
# The policy belongs to a thread and is inherited by the threads it creates, so the worker sets it in its
# main thread before the app boots and before any slot (thread or Ractor) starts, and in the threads already
# there: Ruby 3.3's own timer thread, which a fork starts again in the child before any Ruby code runs. Only
# the two policies of ordinary processes are switched between; a worker started under a real-time or idle
# policy keeps it.

require "fiddle"

module PumaPlus
  class Worker
    module Scheduling
      # The values of Linux's SCHED_BATCH and SCHED_OTHER (sched.h), by the names the setting takes
      # (Setting.worker_scheduling accepts exactly these keys).
      POLICIES = { "batch" => 3, "normal" => 0 }.freeze

      # Puts every thread of the process (and the threads they create from now on) under the policy named
      # +name+ ("batch" or "normal"); call it from the main thread before starting any. Returns nil when that
      # is done or there was nothing to change, else the reason it was not (the caller logs it and runs on).
      def self.apply(name)
        target = POLICIES.fetch(name)
        current = call("sched_getscheduler", 0)
        return error("sched_getscheduler") if current.negative?
        return nil if current == target
        return "the process runs under scheduling policy #{current}, which is left as it is" unless POLICIES.value?(current)

        # struct sched_param holds one int, the static priority, which is 0 for both policies.
        param = [0].pack("i")
        Dir.children("/proc/self/task").each do |thread_id|
          next if call("sched_setscheduler", Integer(thread_id), target, param).zero?
          next if Fiddle.last_error == Errno::ESRCH::Errno # the thread has ended since the listing

          return error("sched_setscheduler")
        end
        nil
      rescue Fiddle::DLError => e
        "this system has no Linux scheduling calls (#{e.message})"
      end

      def self.call(name, *args)
        types = args.map { |arg| arg.is_a?(String) ? Fiddle::TYPE_VOIDP : Fiddle::TYPE_INT }
        Fiddle::Function.new(Fiddle::Handle::DEFAULT[name], types, Fiddle::TYPE_INT).call(*args)
      end
      private_class_method :call

      def self.error(name)
        "#{name}: #{SystemCallError.new(Fiddle.last_error).message}"
      end
      private_class_method :error
    end
  end
end
