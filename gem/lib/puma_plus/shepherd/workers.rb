# frozen_string_literal: true

# The shepherd's worker processes (shepherd → worker): forking them (from the shepherd, or from the mold in
# one batch), reaping them, replacing one that dies, killing one that does not boot or check in, retiring
# and scaling (WORKER_COUNT), and spreading the host's extra slots. Part of PumaPlus::Shepherd, whose
# @workers (index => WorkerHandle) and @retiring it keeps.
#
# A worker that dies is replaced under the same index; one that dies before booting (or within
# MIN_HEALTHY_LIFETIME) is retried after a back-off of 1 s doubling to 30 s, so an app that raises at load
# cannot fork-bomb the machine. A second pipe per worker carries its share of the extra slots the host asked
# for with EXTRA_SLOTS (Worker, docs/PROTOCOL.md "Extra slots"): with k booted worker processes, the one of
# rank r (by index) runs n / k, plus one when r < n % k. Only booted processes get extra slots: the bridge
# exists to cover the boot of new workers, and a slot given to a process still booting would start no sooner
# than that process's own slots. Shares are sent again when a worker boots or exits, when the count changes,
# and to every replacement process (which starts with none).

module PumaPlus
  class Shepherd
    module Workers
      # Back-off after consecutive boot failures of one worker index: 1, 2, 4 ... 30 seconds.
      BACKOFF_INITIAL = 1.0
      BACKOFF_MAX = 30.0
      # A worker that exits sooner than this after it was forked counts as a boot failure.
      MIN_HEALTHY_LIFETIME = 1.0

      private

      def new_worker_handle(index)
        @workers[index] = WorkerHandle.new(index: index, failures: 0)
      end

      def start_worker(worker)
        start_workers([worker])
      end

      # Starts +workers+: each hands over the spare parked for its index (Spares) or is forked. From the mold,
      # every fork command is sent before the first answer is read: the mold forks them back to back while
      # the shepherd waits once, which is what a scale-up of several workers on a busy CPU needs (one round
      # trip each made the last of seven dial in ~200 ms after the first).
      def start_workers(workers)
        spares = workers.to_h { |worker| [worker, take_spare(worker.index)] }
        forked = workers.reject { |worker| spares[worker] }
        ends = forked.map { new_worker_ends }
        pids = fork_processes(forked.map(&:index).zip(ends))
        forked.each_with_index { |worker, i| attach(worker, pids[i], ends[i]) }
        spares.each { |worker, spare| attach(worker, spare.pid, spare.ends) if spare }
        spread_extra_slots
      end

      # Forks a process for each [index, ProcessEnds] of +batch+ (a spare where the ends have a park pipe):
      # from the mold when there is one, the shepherd forking any the mold did not. Returns their pids; the
      # child's ends are closed here. A process keeps no descriptor of another one of the batch: a pipe end
      # left in a sibling would hide the end of the process it belongs to.
      def fork_processes(batch)
        pids = @mold ? fork_from_mold(batch) : []
        batch.each_with_index.map do |(index, ends), i|
          pid = pids[i] || begin
            siblings = batch.flat_map { |_, other| other.equal?(ends) ? [] : other.childs_ends + other.shepherds_ends + [other.park_writer] }
            child = @spawner.build(index, app: @app, booted: ends.boot_writer, extra_slots: ends.extra_reader,
                                          mold: ends.mold_end, refork_after: ends.refork_after, parked: ends.park_reader)
            @spawner.before_fork(index)
            forked = fork { run_worker(index, child, ends, siblings) }
            @spawner.after_fork(index)
            forked
          end
          ends.close_childs_ends
          pid
        end
      end

      # +worker+ is run by process +pid+ now, over the shepherd's ends of +ends+.
      def attach(worker, pid, ends)
        worker.extra_pipe&.close
        worker.extra_pipe = ends.extra_writer
        worker.extra = 0
        worker.mold_link&.close
        worker.mold_link = ends.mold_link
        worker.pid = pid
        worker.started_at = now
        worker.booted = false
        worker.boot_pipe = ends.boot_reader
        worker.restart_at = nil
      end

      # A new process's pipes and mold socket (ProcessEnds), a park pipe too for a +spare+.
      def new_worker_ends(spare: false)
        boot_reader, boot_writer = IO.pipe
        extra_reader, extra_writer = IO.pipe
        mold_link, mold_end = UNIXSocket.pair if @fork_worker
        park_reader, park_writer = IO.pipe if spare
        ends = ProcessEnds.new(boot_reader: boot_reader, boot_writer: boot_writer, extra_reader: extra_reader,
                               extra_writer: extra_writer, mold_link: mold_link, mold_end: mold_end,
                               refork_after: (@fork_worker if !@auto_refork_asked && @fork_worker&.positive?),
                               park_reader: park_reader, park_writer: park_writer)
        # Binary: an app that sets Encoding.default_internal (Rails) would have packed integers transcoded.
        (ends.childs_ends + ends.shepherds_ends + [park_writer].compact).each(&:binmode)
        ends
      end

      # In the forked child: drop the shepherd's descriptors and handlers, run the worker, exit without
      # running the shepherd's at_exit handlers.
      def run_worker(index, child, ends, siblings)
        trap("CHLD", "DEFAULT")
        trap("URG", "DEFAULT")
        # The shepherd's SIGHUP after a log rotation: this worker's descriptors follow the files' paths too.
        trap("HUP") { redirect_output("a") }
        inherited = [@link, @signal_reader, @signal_writer, @lifeline_writer, *ends.shepherds_ends, ends.park_writer,
                     @mold&.socket, *@workers.values.flat_map { |worker| [worker.boot_pipe, worker.extra_pipe, worker.mold_link] },
                     *@retiring.values.flat_map { |worker| [worker.extra_pipe, worker.mold_link] }, *spares_descriptors, *siblings]
        @spawner.run_child(index, inherited) { child }
      end

      # Waits for the shepherd's own worker processes and molds only (by pid), never for any child: a plugin's.
      def reap
        if @mold && (status = wait_for(@mold.pid)&.last)
          Log.line("mold (pid #{@mold.pid}) exited #{describe(status)}; workers fork from the shepherd again", @log) unless @stopping
          @mold.socket.close
          @mold = nil
        end
        @old_molds.reject! do |pid|
          status = wait_for(pid)&.last
          Log.line("mold (pid #{pid}) retired, #{describe(status)}", @log) if status
          status
        end
        reap_spares
        @workers.values.select(&:pid).each do |worker|
          pid, status = wait_for(worker.pid)
          next unless pid

          run_hooks(@config.hooks_for(:after_worker_shutdown), "after_worker_shutdown", worker)
          worker_exited(worker, status)
        end
        @retiring.keys.each do |pid|
          _, status = wait_for(pid)
          next unless status

          retired = @retiring.delete(pid)
          Log.line("worker #{retired.index} (pid #{pid}) retired, #{describe(status)}", @log)
          run_hooks(@config.hooks_for(:after_worker_shutdown), "after_worker_shutdown", retired)
        end
      end

      # [pid, status] once +pid+ has exited, else nil.
      def wait_for(pid)
        Process.wait2(pid, Process::WNOHANG)
      rescue Errno::ECHILD
        nil
      end

      def worker_exited(worker, status)
        handle_boot_pipe(worker.boot_pipe) if worker.boot_pipe # a worker may boot and die between two selects
        lifetime = now - worker.started_at
        old_pid = worker.pid
        worker.pid = nil
        @promoting = nil if worker.equal?(@promoting) # it died before it was the mold: no refork
        return if @stopping

        if !worker.booted && status.exitstatus == Worker::NOT_SHAREABLE
          # Every replacement would fail the same way: stop, as a preloaded app that cannot be shared does.
          @exit_status = 1
          begin_stop("worker #{worker.index}: the app cannot run in Ractors; remove `ractors` or make it shareable")
          return
        end
        spread_extra_slots # the others take its share until its replacement has booted

        Log.line("worker #{worker.index} (pid #{old_pid}) exited #{describe(status)}; starting a replacement", @log)
        if worker.booted && lifetime >= MIN_HEALTHY_LIFETIME
          worker.failures = 0
          worker.restart_at = now
        else
          worker.failures += 1
          delay = [BACKOFF_INITIAL * (2**(worker.failures - 1)), BACKOFF_MAX].min
          what = worker.booted ? "exited #{format('%.1f', lifetime)} s after booting" : "failed to boot"
          Log.line("worker #{worker.index} #{what} (#{worker.failures} in a row); next attempt in #{delay.round(1)} s", @log)
          worker.restart_at = now + delay
        end
      end

      def restart_due_workers
        @workers.each_value do |worker|
          if worker.pid.nil? && worker.restart_at && worker.restart_at <= now
            start_worker(worker)
          elsif worker.pid && !worker.booted && now - worker.started_at > @config.worker_boot_timeout
            Log.line("worker #{worker.index} (pid #{worker.pid}) did not boot within #{@config.worker_boot_timeout} s; killing it", @log)
            signal(worker.pid, "KILL")
            worker.started_at = now # counted as a boot failure when reaped; do not signal again meanwhile
          elsif worker.pid && worker.booted && worker.checked_in_at && now - worker.checked_in_at > @config.worker_timeout
            # puma's worker_timeout: a worker whose Ruby threads cannot run (stuck in C, stopped) is replaced
            Log.line("worker #{worker.index} (pid #{worker.pid}) did not check in within #{@config.worker_timeout} s; killing it", @log)
            signal(worker.pid, "KILL")
            worker.checked_in_at = nil
          end
        end
        @retiring.each do |pid, worker|
          next unless worker.retire_by && now > worker.retire_by

          Log.line("worker #{worker.index} (pid #{pid}) did not stop within #{stop_timeout.round} s; killing it", @log)
          signal(pid, "KILL")
          worker.retire_by = nil
        end
      end

      # Moves +worker+ out of supervision: its exit is awaited in @retiring, KILLed worker_shutdown_timeout
      # after its TERM (#retire_by, set when TERM is sent).
      def retire(worker, termed: true)
        worker.boot_pipe&.close
        worker.boot_pipe = nil
        worker.extra_pipe&.close # a retiring process keeps the extra slots it runs until TERM
        worker.extra_pipe = nil
        worker.mold_link&.close
        worker.mold_link = nil
        worker.retire_by = termed ? now + stop_timeout : nil
        @retiring[worker.pid] = worker
      end

      # WORKER_COUNT: fork workers up to +count+ processes, or send TERM to the highest indexes above it.
      def scale_to(count)
        return if @stopping

        before = @workers.size
        if count > before
          start_workers((before...count).map { |index| new_worker_handle(index) })
        else
          @workers.keys.sort.last(before - count).each do |index|
            worker = @workers.delete(index)
            worker.boot_pipe&.close
            worker.boot_pipe = nil
            worker.extra_pipe&.close
            worker.extra_pipe = nil
            worker.mold_link&.close
            worker.mold_link = nil
            next unless worker.pid

            retire(worker)
            signal(worker.pid, "TERM")
          end
        end
        Log.line("worker processes: #{count} (was #{before})", @log) unless count == before
        spread_extra_slots
      end

      # Writes each booted worker process its share of @extra_slots where it changed: with k booted processes,
      # the one of rank r (by index) gets n / k, plus one when r < n % k. A process still booting has none.
      def spread_extra_slots
        booted = @workers.values.select { |worker| worker.pid && worker.booted && worker.extra_pipe }.sort_by(&:index)
        return if booted.empty?

        k = booted.size
        booted.each_with_index do |worker, rank|
          share = @extra_slots / k + (rank < @extra_slots % k ? 1 : 0)
          next if worker.extra == share

          worker.extra_pipe.write([share].pack(Worker::EXTRA_SLOTS_FORMAT))
          worker.extra = share
        rescue IOError, SystemCallError
          nil # the process has exited; its replacement is told when forked
        end
      end
    end
  end
end
