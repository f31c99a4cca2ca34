# frozen_string_literal: true

# fork_worker's mold, on the shepherd's side (docs/CONFIG.md, "fork_worker and the mold"): promoting a
# worker to the mold, having it fork workers in batches, and giving it up. Part of PumaPlus::Shepherd, whose
# @mold (MoldHandle), @old_molds and @promoting it keeps.
#
# The shepherd is a child subreaper (Subreaper), and every worker gets a mold socket. A refork promotes a
# worker: the first to serve fork_worker's count of requests (once), or worker 0 on SIGURG (the host's, for
# `ctl refork` too). It drains its links and becomes the mold (Worker::Mold), and from then on every worker
# the shepherd starts (a new one of its index, each other index in turn as in a phased restart, scale-ups,
# replacements) is forked by the mold instead, warm. If the mold dies, the shepherd forks them itself again.

module PumaPlus
  class Shepherd
    module Refork
      # Seconds the shepherd waits for the mold to answer a fork command before it forks the worker itself.
      MOLD_ANSWER_TIMEOUT = 10.0

      private

      # fork_worker when this process can be a child subreaper (Subreaper) and slots are threads: its count
      # of requests (0: refork only when asked), else nil. Logs why not when it cannot be.
      def fork_worker_setting
        count = @config.fork_worker
        return nil if count == false

        why = if @config.ractors? then "Ractor slots cannot be forked from a running worker"
              else Subreaper.become
              end
        return count unless why

        Log.line("fork_worker is off: #{why}; workers fork from the shepherd", @log)
        nil
      end

      # Asks the mold to fork each of +batch+ ([index, ProcessEnds] pairs) with the child's ends of its pipes
      # and mold socket ("F"), and of its park pipe for a spare ("S"): every command first, then the answers
      # in order. Returns their pids, nil for each the mold
      # did not fork; after any such, the mold is given up and the shepherd forks those itself. A fork the mold
      # answers as failed does not stop the reading: the answers after it say which workers it did fork, so
      # none is forked twice. Only no answer at all (timeout, EOF) stops it, as with one command in flight.
      def fork_from_mold(batch)
        socket = @mold.socket
        batch.each do |index, ends|
          command = ends.park_reader ? "S" : "F"
          socket.write("#{command}#{[index, ends.refork_after || 0].pack(Worker::Mold::FORK_FORMAT)}")
          ends.childs_ends.each { |io| socket.send_io(io) }
        end
        pids = []
        failed = nil
        batch.each do |index, _|
          answer = (socket.sysread(5) if IO.select([socket], nil, nil, MOLD_ANSWER_TIMEOUT))
          unless answer&.bytesize == 5 && answer.start_with?("P")
            failed ||= "it did not answer for worker #{index}"
            break
          end
          pid = answer.byteslice(1, 4).unpack1(Worker::Mold::PID_FORMAT)
          failed ||= "it could not fork worker #{index}" unless pid.positive?
          pids << (pid if pid.positive?)
        end
        give_up_mold(failed) if failed
        pids
      rescue IOError, SystemCallError => e
        give_up_mold("#{e.class}: #{e.message}")
        pids || []
      end

      # The mold cannot be used: it is sent TERM (awaited with the old molds) and the shepherd forks again.
      def give_up_mold(why)
        Log.line("mold (pid #{@mold.pid}): #{why}; workers fork from the shepherd again", @log)
        retire_mold(@mold)
        @mold = nil
      end


      def retire_mold(mold)
        mold.socket.close unless mold.socket.closed?
        signal(mold.pid, "TERM")
        @old_molds << mold.pid
      end

      # Promotes +candidate+ (worker 0 when asked by signal or ctl, as puma; the worker that first served
      # fork_worker's count of requests, the warm one, for the automatic refork) to the mold: "M" on its mold
      # socket; it drains its links and answers "M" on its boot pipe once it is the mold (#mold_ready).
      # Ignored while another refork or a phased restart is under way.
      def begin_refork(cause, candidate = @workers[0])
        return Log.line("refork (#{cause}) ignored: fork_worker is not on", @log) unless @fork_worker
        return if @stopping
        return Log.line("refork (#{cause}) ignored: a refork or phased restart is under way", @log) if @promoting || @phased

        unless candidate&.pid && candidate.booted && candidate.mold_link
          return Log.line("refork (#{cause}) ignored: the worker to promote has not booted", @log)
        end

        Log.line("refork (#{cause}): worker #{candidate.index} (pid #{candidate.pid}) becomes the mold; every " \
                 "worker is then forked from it, one at a time", @log)
        candidate.mold_link.write("M")
        @promoting = candidate
      rescue IOError, SystemCallError => e
        Log.line("refork (#{cause}) failed: worker 0's mold socket: #{e.message}", @log)
        @promoting = nil
      end

      # +worker+ is the mold now: the old mold goes, a new worker of its index is forked from it at once, then
      # every other index in turn, as a phased restart replaces them; after_refork runs in the mold at the end.
      def mold_ready(worker)
        @promoting = nil
        return signal(worker.pid, "TERM") if @stopping # a stop began while it drained: it goes with the workers

        worker.boot_pipe.close
        worker.boot_pipe = nil
        worker.extra_pipe&.close
        let_go_of_spares # forked before this mold: they are forked again from it
        old = @mold
        @mold = MoldHandle.new(worker.pid, worker.mold_link)
        retire_mold(old) if old
        start_worker(new_worker_handle(worker.index))
        @phase = :refork
        @phased = @workers.keys.sort - [worker.index]
        step_phased_restart
      end

      # after_refork runs in the mold ("A"); a mold that cannot be told is given up.
      def tell_mold_refork_done
        @mold&.socket&.write("A")
      rescue IOError, SystemCallError => e
        give_up_mold(e.message)
      end
    end
  end
end
