# frozen_string_literal: true

# The shepherd: the Ruby process the Java host spawns (docs/ARCHITECTURE.md, "Runtime contract"). It
# dials in on the shepherd link, resolves the configuration once and sends it as CONFIG, loads the app
# (with preload_app), forks the workers whose threads dial in as slots, and replaces any worker that dies.
# It never serves a request itself.
#
# Supervision is one select loop over the host link, a self-pipe fed by SIGCHLD/SIGTERM, and one pipe per
# worker on which the worker reports "booted". A second pipe per worker carries, the other way, its share of
# the extra slots the host asked for with EXTRA_SLOTS (Worker, docs/PROTOCOL.md "Extra slots"): with k
# booted worker processes, the one of rank r (by index) runs n / k, plus one when r < n % k. Only booted
# processes get extra slots: the bridge exists to cover the boot of new workers, and a slot given to a
# process still booting would start no sooner than that process's own slots. Shares are sent again when a
# worker boots or exits, when the count changes, and to every replacement process (which starts with none). A worker that dies is replaced under the same index; one
# that dies before booting (or within MIN_HEALTHY_LIFETIME) is retried after a back-off of 1 s doubling
# to 30 s, so an app that raises at load cannot fork-bomb the machine. GOAWAY(0) or EOF on the host link
# (or SIGTERM) stops the workers: TERM, then KILL after worker_shutdown_timeout seconds; then the shepherd exits.
# SIGINT is ignored: a terminal's Ctrl-C reaches the whole process group, and the host decides.
#
# fork_worker (docs/CONFIG.md, "fork_worker and the mold"): the shepherd is a child subreaper (Subreaper),
# and every worker gets a mold socket. A refork promotes a worker: the first to serve fork_worker's count
# of requests (once), or worker 0 on SIGURG (the host's, for `ctl refork` too). It drains its links and
# becomes the mold (Worker::Mold), and from then on every worker the shepherd starts (a new one of its
# index, each other index in turn as in a phased restart, scale-ups, replacements) is forked by the mold
# instead, warm. If the mold dies, the shepherd
# forks them itself again.
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

module PumaPlus
  class Shepherd
    # Seconds between TERM and KILL when stopping the workers, before the configuration is known.
    STOP_TIMEOUT = 5.0
    # Back-off after consecutive boot failures of one worker index: 1, 2, 4 ... 30 seconds.
    BACKOFF_INITIAL = 1.0
    BACKOFF_MAX = 30.0
    # A worker that exits sooner than this after it was forked counts as a boot failure.
    MIN_HEALTHY_LIFETIME = 1.0
    # Seconds the shepherd waits for the mold to answer a fork command before it forks the worker itself.
    MOLD_ANSWER_TIMEOUT = 10.0
    # The two replacements of every worker one at a time, as the log names them: a phased restart (USR1),
    # and a refork's (every worker forked again from the new mold, after_refork at the end).
    PHASES = { restart: "phased restart", refork: "refork" }.freeze

    # The shepherd's record of one worker index: its current process and its restart state (puma's
    # cluster/worker_handle.rb). Not a slot: a slot is one thread's link to the host, and a process runs several.
    # +boot_pipe+ stays open after the boot byte: the worker writes a check-in byte on it every few seconds
    # (worker_timeout), and +checked_in_at+ is when the last one arrived. +retire_by+: KILL deadline once retired.
    # +extra_pipe+: the write end of the process's extra-slots pipe; +extra+: the share last written on it.
    # +mold_link+: the shepherd's end of the process's mold socket (fork_worker), else nil.
    WorkerHandle = Struct.new(:index, :pid, :started_at, :booted, :boot_pipe, :failures, :restart_at,
                              :checked_in_at, :retire_by, :extra_pipe, :extra, :mold_link, keyword_init: true)
    # The mold: its pid and the shepherd's end of its mold socket.
    MoldHandle = Struct.new(:pid, :socket)

    # How a worker process is made, by the shepherd and by the mold (which has a copy of it from when it was
    # forked): the Worker's arguments, and the fork hooks around the fork.
    class Spawner
      def initialize(config:, link_path:, lifeline:, generation:, log:)
        @config = config
        @link_path = link_path
        @lifeline = lifeline
        @generation = generation
        @log = log
      end

      # The Worker of index +index+: +app+ loaded (or nil: it loads the rackup), its ends of the boot and
      # extra-slots pipes and of its mold socket (nil without fork_worker), +refork_after+ or nil.
      def build(index, app:, booted:, extra_slots:, mold:, refork_after:)
        Worker.new(link_path: @link_path, index: index, threads: @config.slots_per_worker,
                   fibers: !@config.fibers.nil?, workers: @config.worker_processes,
                   app: app, rackup: app ? nil : @config.rackup, on_worker_boot: @config.on_worker_boot_hooks,
                   booted: booted, lifeline: @lifeline, generation: @generation, log: @log,
                   on_worker_shutdown: @config.on_worker_shutdown_hooks,
                   lowlevel_error_handler: @config.lowlevel_error_handler, tag: @config.tag,
                   checkin_interval: [@config.worker_timeout / 4.0, 5.0].min,
                   extra_slots: extra_slots, ractors: @config.ractors?,
                   multithread: @config.slots_per_worker > 1 || !@config.autoscale_bridge.nil?,
                   on_thread_start: @config.hooks_for(:before_thread_start),
                   on_thread_exit: @config.hooks_for(:before_thread_exit),
                   scheduling: @config.worker_scheduling, mold: mold, refork_after: refork_after, spawner: self,
                   before_refork: @config.hooks_for(:before_refork), after_refork: @config.hooks_for(:after_refork))
      end

      # on_worker_fork, before the fork of worker +index+ (a hook that raises is logged).
      def before_fork(index)
        run_hooks(@config.on_worker_fork_hooks, "on_worker_fork", index)
      end

      # after_worker_fork, after it.
      def after_fork(index)
        run_hooks(@config.after_worker_fork_hooks, "after_worker_fork", index)
      end

      # In a forked child, the shepherd's or the mold's: closes +inherited+ (descriptors that are not the new
      # worker's), runs the Worker the block gives, and exits with its status without running the parent's
      # at_exit handlers. Never returns.
      def run_child(index, inherited)
        status = 1
        begin
          trap("TERM", "DEFAULT")
          inherited.each { |io| io.close if io && !io.closed? }
          status = yield.run
        rescue Exception => e # rubocop:disable Lint/RescueException -- the child must never return into its parent
          Log.exception("worker #{index} crashed", e, @log)
        ensure
          $stdout.flush
          $stderr.flush
          exit!(status)
        end
      end

      private

      def run_hooks(hooks, name, index)
        hooks.each { |hook| hook.call(index) }
      rescue StandardError, ScriptError => e
        Log.exception("#{name} hook raised", e, @log)
      end
    end

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

    # -- start-up ------------------------------------------------------------------------------------

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

    def run_hooks(hooks, name, *args)
      hooks.each { |hook| hook.call(*args) }
      true
    rescue StandardError, ScriptError => e
      Log.exception("#{name} hook raised", e, @log)
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

    # -- workers -------------------------------------------------------------------------------------

    def new_worker_handle(index)
      @workers[index] = WorkerHandle.new(index: index, failures: 0)
    end

    def start_worker(worker)
      start_workers([worker])
    end

    # Starts +workers+. From the mold, every fork command is sent before the first answer is read: the mold
    # forks them back to back while the shepherd waits once, which is what a scale-up of several workers
    # on a busy CPU needs (one round trip each made the last of seven dial in ~200 ms after the first). A
    # worker the mold did not fork is forked here.
    def start_workers(workers)
      ends = workers.map { new_worker_ends }
      pids = @mold ? fork_from_mold(workers.zip(ends)) : []
      workers.each_with_index do |worker, i|
        boot_reader, boot_writer, extra_reader, extra_writer, mold_link, mold_end, refork_after = ends[i]
        pid = pids[i]
        unless pid
          child = @spawner.build(worker.index, app: @app, booted: boot_writer, extra_slots: extra_reader, mold: mold_end,
                                               refork_after: refork_after)
          @spawner.before_fork(worker.index)
          pid = fork { run_worker(worker.index, child, boot_reader, extra_writer, mold_link) }
          @spawner.after_fork(worker.index)
        end
        [boot_writer, extra_reader, mold_end].compact.each(&:close)
        worker.extra_pipe&.close
        worker.extra_pipe = extra_writer
        worker.extra = 0
        worker.mold_link&.close
        worker.mold_link = mold_link
        worker.pid = pid
        worker.started_at = now
        worker.booted = false
        worker.boot_pipe = boot_reader
        worker.restart_at = nil
      end
      spread_extra_slots
    end

    # A new worker's pipes and mold socket, and its refork count: [boot reader, boot writer, extra-slots
    # reader, extra-slots writer, mold link, mold end, refork_after].
    def new_worker_ends
      boot_reader, boot_writer = IO.pipe
      extra_reader, extra_writer = IO.pipe
      mold_link, mold_end = UNIXSocket.pair if @fork_worker
      # Binary: an app that sets Encoding.default_internal (Rails) would have packed integers transcoded.
      [boot_reader, boot_writer, extra_reader, extra_writer, mold_link, mold_end].compact.each(&:binmode)
      refork_after = (@fork_worker if !@auto_refork_asked && @fork_worker&.positive?)
      [boot_reader, boot_writer, extra_reader, extra_writer, mold_link, mold_end, refork_after]
    end

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

    # Asks the mold to fork each of +batch+ ([worker, its ends] pairs) with the child's ends of its pipes and
    # mold socket: every command first, then the answers in order. Returns their pids, nil for each the mold
    # did not fork; after any such, the mold is given up and the shepherd forks those itself. A fork the mold
    # answers as failed does not stop the reading: the answers after it say which workers it did fork, so
    # none is forked twice. Only no answer at all (timeout, EOF) stops it, as with one command in flight.
    def fork_from_mold(batch)
      socket = @mold.socket
      batch.each do |worker, (_, boot_writer, extra_reader, _, _, mold_end, refork_after)|
        socket.write("F#{[worker.index, refork_after || 0].pack(Worker::Mold::FORK_FORMAT)}")
        [boot_writer, extra_reader, mold_end].each { |io| socket.send_io(io) }
      end
      pids = []
      failed = nil
      batch.each do |worker, _|
        answer = (socket.sysread(5) if IO.select([socket], nil, nil, MOLD_ANSWER_TIMEOUT))
        unless answer&.bytesize == 5 && answer.start_with?("P")
          failed ||= "it did not answer for worker #{worker.index}"
          break
        end
        pid = answer.byteslice(1, 4).unpack1(Worker::Mold::PID_FORMAT)
        failed ||= "it could not fork worker #{worker.index}" unless pid.positive?
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

    # In the forked child: drop the shepherd's descriptors and handlers, run the worker, exit without
    # running the shepherd's at_exit handlers.
    def run_worker(index, child, boot_reader, extra_writer, mold_link)
      trap("CHLD", "DEFAULT")
      trap("URG", "DEFAULT")
      # The shepherd's SIGHUP after a log rotation: this worker's descriptors follow the files' paths too.
      trap("HUP") { redirect_output("a") }
      inherited = [@link, @signal_reader, @signal_writer, @lifeline_writer, boot_reader, extra_writer, mold_link,
                   @mold&.socket, *@workers.values.flat_map { |worker| [worker.boot_pipe, worker.extra_pipe, worker.mold_link] },
                   *@retiring.values.flat_map { |worker| [worker.extra_pipe, worker.mold_link] }]
      @spawner.run_child(index, inherited) { child }
    end

    def supervise
      until @stopping && @workers.values.none?(&:pid) && @retiring.empty? && @mold.nil? && @old_molds.empty?
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
      @phased = nil
      @phase_step = nil
    end

    # -- phased restart and worker count (host frames, docs/ARCHITECTURE.md "Lifecycle") ---------------

    # PHASED_RESTART: every worker index in turn gets a new process; once it has booted the old one is sent
    # TERM (it finishes its running request, its links drain) and the next index starts after it exited.
    # A replacement that fails to boot is retried as any worker is, and the old process keeps serving.
    def begin_phased_restart
      return if @stopping
      if @phased || @promoting
        Log.line("#{@promoting ? 'a refork' : 'phased restart'} already under way; phased restart ignored", @log)
        return
      end

      note = if @mold then " (fork_worker: new workers fork from the mold)"
             elsif @app then " (preload_app: new workers fork from the app loaded at boot; USR2 loads new code)"
             else ""
             end
      Log.line("phased restart: replacing #{@workers.size} worker processes one at a time#{note}", @log)
      @phase = :restart
      @phased = @workers.keys.sort
      step_phased_restart
    end

    # -- refork (fork_worker) --------------------------------------------------------------------------

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
      old = @mold
      @mold = MoldHandle.new(worker.pid, worker.mold_link)
      retire_mold(old) if old
      start_worker(new_worker_handle(worker.index))
      @phase = :refork
      @phased = @workers.keys.sort - [worker.index]
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

    # after_refork runs in the mold ("A"); a mold that cannot be told is given up.
    def tell_mold_refork_done
      @mold&.socket&.write("A")
    rescue IOError, SystemCallError => e
      give_up_mold(e.message)
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

    def enforce_stop_deadline
      return if now < @kill_at

      @workers.each_value do |worker|
        next unless worker.pid

        Log.line("worker #{worker.index} (pid #{worker.pid}) did not stop within #{stop_timeout.round} s; killing it", @log)
        signal(worker.pid, "KILL")
      end
      @retiring.each_key { |pid| signal(pid, "KILL") }
      @old_molds.each { |pid| signal(pid, "KILL") }
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
