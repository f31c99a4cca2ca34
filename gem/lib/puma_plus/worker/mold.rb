# frozen_string_literal: true

# The mold (fork_worker, docs/CONFIG.md "fork_worker and the mold"): a worker process the shepherd promoted
# once it was warm. It serves no request; its links have drained. It forks the workers the shepherd asks
# for, so each starts with the app, its caches and (on Ruby 3.3) YJIT's code as the mold had them, sharing
# those pages copy-on-write instead of loading and warming its own.
#
# The mold socket (a UNIX socket pair between the shepherd and this process), the shepherd's side:
#   "F" u32 index u32 refork_after, then three descriptors (SCM_RIGHTS): the new worker's boot pipe (write
#       end), its extra-slots pipe (read end) and its own mold socket; refork_after 0 means none;
#   "S": as "F", with a fourth descriptor, the read end of the new worker's park pipe: it is a spare, which
#       waits on that pipe after loading the app (Shepherd::Spares);
#   "A": the refork cycle is done: run after_refork.
# This side answers each "F" and "S" with "P" u32 pid (0: the fork failed). The new worker is forked twice over (a
# child that forks it and exits at once), so that its parent is the shepherd, a child subreaper
# (Shepherd::Subreaper), which waits for it and sees it exit as it does its own workers.
#
# TERM, or EOF on the socket (the shepherd is gone), ends the mold.

require "socket"
require_relative "../log"

module PumaPlus
  class Worker
    class Mold
      # pack format of a fork command's arguments and of the answer's pid.
      FORK_FORMAT = "NN"
      PID_FORMAT = "N"

      # +index+: the worker index this process had. +socket+: its mold socket. +booted+: its boot pipe, on
      # which "M" says the mold is ready. +spawner+: builds the forked workers (Shepherd::Spawner). +app+:
      # the loaded app they start with. +inherited+: this process's descriptors a forked worker must not
      # keep. TERM is the mold's own from here on (the worker's drain has been done).
      def initialize(index:, socket:, booted:, spawner:, app:, log:, before_refork:, after_refork:, inherited:)
        @index = index
        @socket = socket
        @booted = booted
        @spawner = spawner
        @app = app
        @log = log
        @before_refork = before_refork
        @after_refork = after_refork
        @inherited = inherited
        @stop_reader, @stop_writer = IO.pipe
      end

      # Serves the shepherd's commands until TERM or EOF. Returns the exit status (0).
      def run
        Process.setproctitle("puma-plus: mold (was worker #{@index})")
        Log.source = "mold".freeze
        trap("TERM") { @stop_writer.write_nonblock(".", exception: false) }
        run_hooks(@before_refork, "before_refork")
        Log.line("mold: ready (pid #{Process.pid}, was worker #{@index}); new workers fork from it", @log)
        @booted.write("M")
        while (ready = IO.select([@socket, @stop_reader])&.first) && !ready.include?(@stop_reader)
          case read_exactly(1)
          when "F" then fork_command(spare: false)
          when "S" then fork_command(spare: true)
          when "A" then run_hooks(@after_refork, "after_refork")
          else break # EOF: the shepherd is gone
          end
        end
        0
      rescue IOError, SystemCallError
        0
      end

      private

      def fork_command(spare:)
        index, refork_after = read_exactly(8).unpack(FORK_FORMAT)
        # Unbuffered, as IO.pipe's and UNIXSocket.pair's own (the boot byte must reach the shepherd at once),
        # and binary, as the shepherd made them.
        ends = [@socket.recv_io, @socket.recv_io, @socket.recv_io(UNIXSocket), (@socket.recv_io if spare)].compact
        ends.each do |io|
          io.sync = true
          io.binmode
        end
        pid = fork_worker(index, refork_after.zero? ? nil : refork_after, *ends)
        ends.each(&:close)
        @socket.write("P#{[pid].pack(PID_FORMAT)}")
      end

      # Forks worker +index+ through a child that exits at once; returns its pid, or 0 when it failed.
      def fork_worker(index, refork_after, booted, extra_slots, mold, parked = nil)
        reader, writer = IO.pipe
        [reader, writer].each(&:binmode) # a pid's bytes, whatever Encoding.default_internal the app set
        @spawner.before_fork(index)
        middle = fork do
          reader.close
          pid = fork { run_worker(writer, index, refork_after, booted, extra_slots, mold, parked) }
          writer.write([pid].pack(PID_FORMAT))
          exit!(0)
        end
        writer.close
        pid = reader.read(4)&.unpack1(PID_FORMAT) || 0
        Process.wait(middle)
        @spawner.after_fork(index)
        pid
      rescue SystemCallError => e
        Log.line("mold: cannot fork worker #{index}: #{e.message}", @log)
        0
      ensure
        reader&.close unless reader&.closed?
      end

      # In the new worker: drop what is the mold's, then run as a worker forked by the shepherd would.
      def run_worker(writer, index, refork_after, booted, extra_slots, mold, parked)
        writer.close
        @spawner.run_child(index, @inherited + [@stop_reader, @stop_writer]) do
          @spawner.build(index, app: @app, booted: booted, extra_slots: extra_slots, mold: mold, refork_after: refork_after,
                                parked: parked)
        end
      end

      # +n+ bytes from the socket, unbuffered (descriptors arrive with some of its bytes: a buffered read could
      # swallow them); nil at EOF.
      def read_exactly(n)
        data = +""
        data << @socket.sysread(n - data.bytesize) while data.bytesize < n
        data
      rescue EOFError
        nil
      end

      # A hook that raises is logged; the mold goes on (as puma's worker 0 does).
      def run_hooks(hooks, name)
        hooks.each { |hook| hook.call }
      rescue StandardError, ScriptError => e
        Log.exception("mold: #{name} hook raised", e, @log)
      end
    end
  end
end
