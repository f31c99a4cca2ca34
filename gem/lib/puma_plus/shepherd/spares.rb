# frozen_string_literal: true

# Spare workers (`spare_workers N`, docs/CONFIG.md "Spare workers"), the shepherd's side: worker processes
# forked ahead of a scale-up (from the mold when there is one), parked once their app is loaded, for the
# next N worker indexes. A scale-up to an index that has a spare hands that process a "G" on its park pipe:
# it runs its on_worker_boot hooks and dials in at once, instead of being forked, copied page by page and
# booted while the queue waits. Part of PumaPlus::Shepherd, whose @spares (index => SpareHandle) and
# @let_go (pids of spares told to go) it keeps.
#
# When. Spares are forked only while nothing else is under way: every worker booted, no refork or phased
# restart, not stopping, so that making them never takes CPU from a scale-up that is booting. A spare no
# longer wanted (its index is a worker's now that it was not handed, the worker count fell, a new mold
# exists) is let go: the shepherd closes its park pipe and the process exits without running a hook. A
# spare that exits on its own (its app failed to load) stops the forking of spares for BACKOFF_MAX.

module PumaPlus
  class Shepherd
    # A parked spare: its index, pid, the shepherd's ends of its pipes (ProcessEnds) and its park pipe's
    # write end.
    SpareHandle = Struct.new(:index, :pid, :ends, :park, keyword_init: true)

    module Spares
      private

      # The indexes spares should be parked for now: the next spare_workers after the running ones, below
      # autoscale's max when autoscaling.
      def spare_indexes
        first = @workers.size
        last = first + @config.spare_workers
        last = [last, @config.autoscale_max].min if @config.autoscale
        (first...last).to_a
      end

      # Called each turn of the supervision loop: lets go of the spares no longer wanted and, when the tree
      # is quiet, forks the missing ones (in one batch from the mold).
      def keep_spares
        return if @spares.empty? && @config.spare_workers.zero?

        wanted = @stopping ? [] : spare_indexes
        (@spares.keys - wanted).each { |index| let_go(@spares.delete(index)) }
        return unless quiet_for_spares?

        missing = wanted - @spares.keys
        return if missing.empty?

        ends = missing.map { new_worker_ends(spare: true) }
        pids = fork_processes(missing.zip(ends))
        missing.each_with_index do |index, i|
          @spares[index] = SpareHandle.new(index: index, pid: pids[i], ends: ends[i], park: ends[i].park_writer)
          Log.line("spare worker #{index} (pid #{pids[i]}) parked", @log)
        end
      end

      def quiet_for_spares?
        !@stopping && !@promoting && !@phased && (@spares_paused_until.nil? || now >= @spares_paused_until) &&
          @workers.values.all? { |worker| worker.pid && worker.booted }
      end

      # The spare parked for +index+, handed over (its park pipe told "G"), or nil when there is none.
      def take_spare(index)
        spare = @spares.delete(index) or return nil
        spare.park.write("G")
        spare.park.close
        spare
      rescue IOError, SystemCallError
        let_go(spare) # it is gone: the worker is forked instead
        nil
      end

      # Tells +spare+ to exit (EOF on its park pipe) and closes the shepherd's ends; reaped as let go.
      def let_go(spare)
        spare.park.close unless spare.park.closed?
        spare.ends.close_shepherds_ends
        @let_go << spare.pid
      end

      def let_go_of_spares
        @spares.each_value { |spare| let_go(spare) }
        @spares.clear
      end

      # Reaps let-go spares, and spares that exited while parked (which pauses the forking of spares).
      def reap_spares
        @let_go.reject! { |pid| wait_for(pid) }
        @spares.values.each do |spare|
          _, status = wait_for(spare.pid)
          next unless status

          @spares.delete(spare.index)
          spare.park.close
          spare.ends.close_shepherds_ends
          @spares_paused_until = now + Workers::BACKOFF_MAX
          Log.line("spare worker #{spare.index} (pid #{spare.pid}) exited #{describe(status)} while parked; " \
                   "no spares for #{Workers::BACKOFF_MAX.round} s", @log)
        end
      end

      # Every descriptor a forked child must not keep of the spares (a park pipe's write end kept by another
      # process would never give its spare EOF).
      def spares_descriptors
        @spares.values.flat_map { |spare| [spare.park, *spare.ends.shepherds_ends] }
      end
    end
  end
end
