# frozen_string_literal: true

# Replacing every worker process one at a time (host frames, docs/ARCHITECTURE.md "Lifecycle"): the host's
# PHASED_RESTART, and a refork's second half, where each index is forked again from the new mold. Part of
# PumaPlus::Shepherd, whose @phased (indexes still to replace), @phase_step and @phase it keeps.

module PumaPlus
  class Shepherd
    module PhasedRestart
      # The two replacements of every worker one at a time, as the log names them: a phased restart (USR1),
      # and a refork's (every worker forked again from the new mold, after_refork at the end).
      PHASES = { restart: "phased restart", refork: "refork" }.freeze

      private

      # PHASED_RESTART: every worker index in turn gets a new process; once it has booted the old one is sent
      # TERM (it finishes its running request, its links drain) and the next index starts after it exited.
      # A replacement that fails to boot is retried as any worker is, and the old process keeps serving.
      def begin_phased_restart
        return if @stopping
        if @phased || @promoting
          Log.line("#{@promoting ? 'a refork' : 'phased restart'} already under way; phased restart ignored", @log)
          return
        end

        let_go_of_spares # they may have loaded the old code: forked again once the restart is done
        note = if @mold then " (fork_worker: new workers fork from the mold)"
               elsif @app then " (preload_app: new workers fork from the app loaded at boot; USR2 loads new code)"
               else ""
               end
        Log.line("phased restart: replacing #{@workers.size} worker processes one at a time#{note}", @log)
        @phase = :restart
        @phased = @workers.keys.sort
        step_phased_restart
      end

      def step_phased_restart
        return if @phased.nil? || @stopping

        if (step = @phase_step)
          if !step[:termed] && step[:worker].booted
            signal(step[:old_pid], "TERM")
            @retiring[step[:old_pid]]&.retire_by = now + stop_timeout
            step[:termed] = true
          end
          return if !step[:termed] || @retiring.key?(step[:old_pid])

          @phase_step = nil
        end
        while (index = @phased.shift)
          old = @workers[index]
          next if old.nil? || old.pid.nil? # scaled away, or already being replaced after a crash

          retire(old, termed: false) # it serves on until its replacement has booted
          fresh = new_worker_handle(index)
          start_worker(fresh)
          @phase_step = { old_pid: old.pid, worker: fresh, termed: false }
          return
        end
        @phased = nil
        Log.line("#{PHASES.fetch(@phase)} done", @log)
        tell_mold_refork_done if @phase == :refork
      end
    end
  end
end
