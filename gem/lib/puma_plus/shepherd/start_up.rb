# frozen_string_literal: true

# The shepherd's start-up (the shepherd, before any worker exists): dialling in on the host link and its
# HELLO/WELCOME handshake, resolving the configuration (sent to the host as CONFIG by Shepherd#run), puma's
# stdout_redirect and its reopen after a log rotation, preload_app, puma's plugins and the signal traps.
# Part of PumaPlus::Shepherd, whose state it sets up.

module PumaPlus
  class Shepherd
    module StartUp
      private

      def connect
        if @link_path.nil? || @link_path.empty?
          Log.line("PUMA_PLUS_LINK is not set: the shepherd is started by the puma-plus host, not by hand", @log)
          return false
        end
        @link = UNIXSocket.new(@link_path)
        @link.sync = true
        true
      rescue SystemCallError => e
        Log.line("shepherd cannot reach the host at #{@link_path}: #{e.message}", @log)
        false
      end

      def handshake
        hello = Wire::Hello.new(version: Wire::VERSION, role: Wire::Hello::ROLE_SHEPHERD, pid: Process.pid,
                                generation: @generation, worker_index: 0, thread_index: 0)
        @link.write(hello.encode)
        frame = Wire::Frame.read(@link)
        case frame&.type
        when Wire::FrameType::WELCOME
          version = Wire.decode(frame).version
          return true if version.between?(Wire::MIN_VERSION, Wire::VERSION)

          Log.line("the host answered protocol version #{version}; this shepherd speaks #{Wire::MIN_VERSION} to " \
                   "#{Wire::VERSION}", @log)
        when Wire::FrameType::GOAWAY
          goaway = Wire.decode(frame)
          Log.line("the host refused the shepherd: GOAWAY(#{goaway.code}) #{goaway.reason_text}", @log)
        when nil
          Log.line("the host closed the shepherd link before WELCOME", @log)
        else
          Log.line("protocol error: expected WELCOME, got #{frame.type_name}", @log)
        end
        false
      rescue Wire::ProtocolError, IOError, SystemCallError => e
        Log.line("shepherd link failed during the handshake: #{e.message}", @log)
        false
      end

      def configure
        @config = Configuration.resolve(@argv, env: @env, cwd: @cwd).check_rackup!
        true
      rescue ConfigError => e
        Log.line(e.message, @log)
        begin
          @link.write(Wire::GoAway.new(code: Wire::GoAway::INTERNAL_ERROR, reason: "configuration error: #{e.message}"[0, 4096]).encode)
        rescue IOError, SystemCallError
          nil
        end
        false
      end

      # Puma's stdout_redirect: this process and the workers it forks write to the files. The first
      # generation truncates them unless told to append; later generations (hot restart) always append, and
      # so does a reopen (#reopen_output).
      def redirect_output(mode = @config.redirect_append || @generation > 1 ? "a" : "w")
        [[$stdout, @config.stdout_path], [$stderr, @config.stderr_path]].each do |io, path|
          next unless path

          io.reopen(path, mode)
          io.sync = true
        end
      end

      # With preload_app the app is loaded here once; with `ractors` too it is made shareable here, so an app
      # that cannot be stops the boot at once instead of failing in every worker.
      def preload
        return true unless @config.preload_app?

        @app = Rackup.load(@config.rackup)
        @app = ShareableApp.make(@app) if @config.ractors?
        true
      rescue ShareableApp::Error => e
        Log.line("the app cannot run in Ractors (ractors): #{e.message}", @log)
        false
      rescue Exception => e # rubocop:disable Lint/RescueException -- report any load failure, then exit 1
        raise if e.is_a?(SystemExit) || e.is_a?(SignalException)

        Log.exception("the app failed to load in the shepherd (preload_app)", e, @log)
        false
      end

      # Starts the puma plugins the configuration names, with the shepherd as puma's launcher (PluginLauncher).
      def start_plugins
        PluginLauncher.new(config: @config, host_pid: Process.ppid, log: @log).start
        true
      rescue StandardError, ScriptError => e
        Log.exception("a puma plugin failed to start", e, @log)
        false
      end

      def install_signal_handlers
        @signal_reader, @signal_writer = IO.pipe
        trap("INT", "IGNORE")
        # The host's lifecycle signals; a signal sent to the whole process group must not kill the shepherd.
        %w[USR1 USR2 TTIN TTOU].each { |name| trap(name, "IGNORE") }
        trap("TERM") { @signal_writer.write_nonblock("T", exception: false) }
        trap("CHLD") { @signal_writer.write_nonblock("C", exception: false) }
        # The host's SIGHUP (log rotation, as puma's): reopen the stdout_redirect files.
        trap("HUP") { @signal_writer.write_nonblock("H", exception: false) }
        # puma's refork signal (fork_worker): worker 0 becomes the mold.
        trap("URG") { @signal_writer.write_nonblock("U", exception: false) }
      end

      # After a log rotation moved the stdout_redirect files away: this process opens them again at their
      # paths and tells each worker (its own descriptors, inherited at fork) to do the same with SIGHUP.
      def reopen_output
        return unless @config.stdout_path || @config.stderr_path

        redirect_output("a")
        (@workers.values.map(&:pid).compact + @retiring.keys).each do |pid|
          Process.kill("HUP", pid)
        rescue Errno::ESRCH
          nil # exited meanwhile: reaped on the next CHLD
        end
      end
    end
  end
end
