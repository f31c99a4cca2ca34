# frozen_string_literal: true

# The shepherd: the Ruby process the Java host spawns (docs/ARCHITECTURE.md, "Runtime contract"). It
# dials in on the shepherd link, resolves the configuration once and sends it as CONFIG, loads the app
# (with preload_app), forks the workers whose threads dial in as slots, and replaces any worker that dies.
# It never serves a request itself.
#
# This file is its life cycle and its supervision: one select loop over the host link, a self-pipe fed by
# SIGCHLD/SIGTERM, and one pipe per worker on which the worker reports "booted". GOAWAY(0) or EOF on the
# host link (or SIGTERM) stops the workers: TERM, then KILL after worker_shutdown_timeout seconds; then the
# shepherd exits. SIGINT is ignored: a terminal's Ctrl-C reaches the whole process group, and the host
# decides. Its jobs live beside it under shepherd/: the link, configuration and output at start-up
# (StartUp), the worker processes, their replacement and their extra slots (Workers, WorkerHandle, Spawner),
# fork_worker's mold (Refork, MoldHandle), spare workers (Spares) and the one-at-a-time replacements (PhasedRestart).
#
# Puma's plugins run here, where puma runs them in its master (PluginLauncher), and so do the lifecycle hooks
# (docs/CONFIG.md, "Hooks"): after_booted once every worker has booted for the first time, before_restart
# when the host retires this generation for a hot restart, after_stopped once its workers have exited on any
# other stop, after_worker_shutdown after each worker process exits. Only the shepherd's own workers are
# reaped: a plugin may fork processes of its own and wait for them itself.

require "socket"
require "rack"
require_relative "wire"
require_relative "log"
require_relative "configuration"
require_relative "rackup"
require_relative "worker"
require_relative "shareable_app"
require_relative "plugin_launcher"
require_relative "subreaper"
require_relative "shepherd/worker_handle"
require_relative "shepherd/mold_handle"
require_relative "shepherd/spawner"
require_relative "shepherd/process_ends"
require_relative "shepherd/start_up"
require_relative "shepherd/workers"
require_relative "shepherd/refork"
require_relative "shepherd/spares"
require_relative "shepherd/phased_restart"

module PumaPlus
  class Shepherd
    # Seconds between TERM and KILL when stopping the workers, before the configuration is known.
    STOP_TIMEOUT = 5.0

    # One module a job (shepherd/*.rb). They are parts of this one object, not objects of their own: every
    # one of them reads and writes the supervision state set up in #initialize (the workers, the mold, the
    # phase), which one select loop drives.
    include StartUp
    include Workers
    include Refork
    include Spares
    include PhasedRestart

    # +argv+: the user's flags and rackup path; +link_path+: link.sock (PUMA_PLUS_LINK).
    # +generation+: which shepherd generation this is (PUMA_PLUS_GENERATION, set by the host: 1 at boot,
    # one more for each hot restart or config reload); it goes into every HELLO.
    def initialize(argv, link_path: ENV["PUMA_PLUS_LINK"], env: ENV, cwd: Dir.pwd, log: $stderr,
                   generation: Integer(ENV.fetch("PUMA_PLUS_GENERATION", "1"), 10))
      @argv = argv
      @link_path = link_path
      @env = env
      @cwd = cwd
      @log = log
      @generation = generation
      @workers = {}
      # Workers told to leave (phased restart, fewer workers) that have not exited yet: pid => WorkerHandle.
      @retiring = {}
      # Phased restart: indexes still to replace, and the replacement under way.
      @phased = nil
      @phase_step = nil
      @stopping = false
      @exit_status = 0
      # EXTRA_SLOTS: the slots beyond threads the host wants across all worker processes.
      @extra_slots = 0
      # Whether after_booted has run, and whether the host retired this generation for a hot restart.
      @booted_once = false
      @restarting = false
      # fork_worker: the mold (MoldHandle) once there is one, molds told to go that have not exited (pids),
      # the worker being promoted, whether the automatic refork has been asked for, and which phased
      # replacement is under way (a key of PHASES).
      @mold = nil
      @old_molds = []
      @promoting = nil
      @auto_refork_asked = false
      @phase = :restart
      # spare_workers: parked spares (index => SpareHandle), pids of spares let go, and when forking spares
      # may resume after one failed.
      @spares = {}
      @let_go = []
      @spares_paused_until = nil
    end

    # The resolved configuration (after #run has resolved it).
    attr_reader :config

    # Runs until stopped. Returns the process exit status: 0 after a normal stop, 1 when the link,
    # the configuration or a preloaded app could not be set up.
    def run
      Process.setproctitle("puma-plus: shepherd")
      return 1 unless connect && handshake
      return 1 unless configure

      redirect_output
      Log.json = @config.log_format == "json"
      Log.line("puma-plus #{VERSION} (#{PumaPlus.ruby_description}), shepherd generation #{@generation}, " \
               "pid #{Process.pid}#{", preloading the app" if @config.preload_app?}", @log)
      Process.setproctitle("puma-plus: shepherd#{" [#{@config.tag}]" if @config.tag} (generation #{@generation})")
      @config.unsupported.each { |unsupported| Log.line(unsupported.to_s, @log) }
      if @config.ractors? && %i[before_thread_start before_thread_exit].any? { |hook| @config.hooks_for(hook).any? }
        Log.line("before_thread_start/before_thread_exit hooks do not run under ractors (a block cannot enter a Ractor)", @log)
      end
      # Before CONFIG: from then on the host may send SIGHUP (a log reopen) to this process.
      install_signal_handlers
      @link.write(Wire::Config.new(json: @config.to_json).encode)
      @env["RACK_ENV"] = @config.environment
      return 1 unless start_plugins
      return 1 unless preload

      run_hooks(@config.before_fork_hooks, "before_fork") or return 1
      # Workers hold the read end; only this process holds the write end, so its death is their EOF.
      @lifeline_reader, @lifeline_writer = IO.pipe
      @spawner = Spawner.new(config: @config, link_path: @link_path, lifeline: @lifeline_reader,
                             generation: @generation, log: @log)
      @fork_worker = fork_worker_setting
      start_workers(Array.new(@config.worker_processes) { |index| new_worker_handle(index) })
      supervise
      run_hooks(@config.hooks_for(:after_stopped), "after_stopped") unless @restarting
      @exit_status
    ensure
      @link&.close unless @link&.closed?
    end

    private

    def run_hooks(hooks, name, *args)
      hooks.each { |hook| hook.call(*args) }
      true
    rescue StandardError, ScriptError => e
      Log.exception("#{name} hook raised", e, @log)
      false
    end

    # -- supervision ---------------------------------------------------------------------------------

    def supervise
      until @stopping && @workers.values.none?(&:pid) && @retiring.empty? && @mold.nil? && @old_molds.empty? &&
            @spares.empty? && @let_go.empty?
        readers = [@signal_reader]
        readers << @link if @link && !@link.closed?
        @workers.each_value { |worker| readers << worker.boot_pipe if worker.boot_pipe }
        ready = IO.select(readers, nil, nil, select_timeout)
        ready&.first&.each do |io|
          if io == @signal_reader then handle_signals
          elsif io == @link then handle_link
          else handle_boot_pipe(io)
          end
        end
        reap
        @stopping ? enforce_stop_deadline : restart_due_workers
        step_phased_restart
        keep_spares
      end
    end

    def select_timeout
      deadlines = if @stopping
                    [@kill_at]
                  else
                    @workers.values.flat_map do |worker|
                      [worker.restart_at, (worker.started_at + @config.worker_boot_timeout if worker.pid && !worker.booted),
                       (worker.checked_in_at + @config.worker_timeout if worker.pid && worker.booted && worker.checked_in_at)]
                    end + @retiring.values.map(&:retire_by)
                  end
      deadline = deadlines.compact.min
      deadline && [deadline - now, 0].max
    end

    def handle_signals
      signals = @signal_reader.read_nonblock(256, exception: false)
      return unless signals.is_a?(String)

      reopen_output if signals.include?("H")
      begin_refork("SIGURG") if signals.include?("U")
      begin_stop("SIGTERM") if signals.include?("T")
    end

    def handle_link
      frame = Wire::Frame.read(@link)
      if frame.nil?
        @link.close
        begin_stop(nil) # the host is gone or done with this generation
        return
      end
      case (message = Wire.decode(frame))
      when Wire::PhasedRestart
        begin_phased_restart
      when Wire::WorkerCount
        scale_to(message.count)
      when Wire::ExtraSlots
        @extra_slots = message.count
        spread_extra_slots
      when Wire::GoAway
        goaway = message
        unless goaway.code == Wire::GoAway::NORMAL
          Log.line("the host sent GOAWAY(#{goaway.code}) #{goaway.reason_text}", @log)
          @exit_status = 1
        end
        if goaway.hot_restart? && !@stopping
          @restarting = true
          run_hooks(@config.hooks_for(:before_restart), "before_restart")
        end
        begin_stop(nil)
      else
        raise Wire::ProtocolError, "unexpected #{frame.type_name} on the shepherd link"
      end
    rescue Wire::ProtocolError, IOError, SystemCallError => e
      Log.line("shepherd link failed: #{e.message}; stopping the workers", @log)
      @link.close unless @link.closed?
      @exit_status = 1 if e.is_a?(Wire::ProtocolError)
      begin_stop(nil)
    end

    def handle_boot_pipe(io)
      worker = @workers.values.find { |w| w.boot_pipe == io }
      data = io.read_nonblock(256, exception: false)
      return if data == :wait_readable

      if data.is_a?(String) # the boot byte, then check-ins ("R": it served fork_worker's count; "M": the mold is ready)
        if data.include?("R") && !@auto_refork_asked
          @auto_refork_asked = true
          begin_refork("worker #{worker.index} served #{@fork_worker} requests", worker)
        end
        return mold_ready(worker) if data.include?("M") && worker.equal?(@promoting)

        booting = !worker.booted
        worker.booted = true
        worker.checked_in_at = now
        if booting # as puma logs it; tests wait for this line before they count on the worker being booted
          Log.line("worker #{worker.index} (pid #{worker.pid}) booted in #{format('%.2f', now - worker.started_at)} s", @log)
          spread_extra_slots
          if !@booted_once && @workers.values.all?(&:booted)
            @booted_once = true
            run_hooks(@config.hooks_for(:after_booted), "after_booted")
          end
        end
        return
      end
      io.close
      worker.boot_pipe = nil
    end

    def begin_stop(reason)
      return if @stopping

      Log.line("shepherd stopping (#{reason})", @log) if reason
      @stopping = true
      @kill_at = now + stop_timeout
      @workers.each_value do |worker|
        worker.restart_at = nil
        signal(worker.pid, "TERM") if worker.pid
      end
      @retiring.each_key { |pid| signal(pid, "TERM") }
      retire_mold(@mold) if @mold
      @mold = nil
      let_go_of_spares
      @phased = nil
      @phase_step = nil
    end

    def enforce_stop_deadline
      return if now < @kill_at

      @workers.each_value do |worker|
        next unless worker.pid

        Log.line("worker #{worker.index} (pid #{worker.pid}) did not stop within #{stop_timeout.round} s; killing it", @log)
        signal(worker.pid, "KILL")
      end
      @retiring.each_key { |pid| signal(pid, "KILL") }
      @old_molds.each { |pid| signal(pid, "KILL") }
      @let_go.each { |pid| signal(pid, "KILL") }
      @kill_at = now + stop_timeout # reap what KILL left; ask again only if something is still there
    end

    # Seconds between TERM and KILL for a stopping worker: worker_shutdown_timeout once configured.
    def stop_timeout
      @config ? @config.worker_shutdown_timeout : STOP_TIMEOUT
    end

    def signal(pid, name)
      Process.kill(name, pid)
    rescue Errno::ESRCH
      nil
    end

    def describe(status)
      if status.signaled?
        "on signal #{Signal.signame(status.termsig) || status.termsig}"
      else
        "with status #{status.exitstatus}"
      end
    end

    def now
      Process.clock_gettime(Process::CLOCK_MONOTONIC)
    end
  end
end
