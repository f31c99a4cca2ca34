# frozen_string_literal: true

# One forked worker process: it loads the app (unless the shepherd preloaded it), runs on_worker_boot
# hooks, and starts one Worker::Slot per thread index, each a Worker::Link dialling in to the host. It sits
# between the shepherd (which forks and replaces it) and the app (which its slots call). A slot is a thread,
# with `ractors` a Ractor (Worker::RactorSlot; the app is made shareable first, ShareableApp), or with
# `fibers` a fiber: every slot of the worker then runs on one thread under Async's fiber scheduler
# (Worker::FiberReactor), each still a Worker::Slot with its own link.
#
# Extra slots (docs/PROTOCOL.md, "Extra slots"): the shepherd writes this worker's share of EXTRA_SLOTS as
# a u32 (big-endian) on a pipe, whenever it changes; a thread of the main Ractor reads it and starts slots
# with thread indexes threads, threads + 1, ..., or retires the highest (its link leaves with GOAWAY(0)
# after its request).
#
# Signals: INT is ignored (the host decides when to stop). TERM stops taking requests: every link sends
# GOAWAY(0), finishes the request it may be serving, and ends when the host closes it; links still idle
# after DRAIN_GRACE seconds are closed. When every link has ended, #run returns and the process exits.
#
# fork_worker (docs/CONFIG.md, "fork_worker and the mold"): a worker given a +mold+ socket may be promoted.
# The shepherd writes "M" on it: the worker drains its links as on TERM, then, instead of exiting, becomes
# the mold (Worker::Mold) and forks the workers the shepherd asks for from its own warm memory. A worker
# given +refork_after+ counts the requests its links served and writes "R" on the boot pipe at that count:
# the first to do so is promoted (the automatic refork).

require_relative "wire"
require_relative "log"
require_relative "rack_env"
require_relative "rackup"
require_relative "worker/gvl_clock"

module PumaPlus
  class Worker
    # The exit status of a worker whose app cannot be shared between Ractors (`ractors`): a configuration
    # error no restart can fix, so the shepherd stops instead of retrying (sysexits' EX_CONFIG).
    NOT_SHAREABLE = 78
    # Seconds an idle link waits, after TERM and its GOAWAY, for the host to close it.
    DRAIN_GRACE = 2.0
    # pack format of one share on the extra-slots pipe: u32, big-endian.
    EXTRA_SLOTS_FORMAT = "N"

    # +link_path+: link.sock. +index+: worker index (0...workers). +threads+: links (slots) to open.
    # +workers+: how many worker processes the shepherd runs (for rack.multiprocess). +app+: a
    # preloaded app, or nil to load +rackup+ here. +on_worker_boot+: callables run with the index after
    # the app is loaded. +booted+: an IO to which one byte is written once booted (then one per
    # +checkin_interval+ seconds, worker_timeout), so the
    # shepherd can tell a boot failure from a later crash. +lifeline+: the read end of a pipe whose
    # write end only the shepherd holds; its EOF means the shepherd died, and the worker then stops as
    # on TERM rather than live on as an orphan.
    # +on_worker_shutdown+: callables run with the index after the last link ended, before the process
    # exits. +on_thread_start+, +on_thread_exit+: callables each thread slot runs when it starts and before
    # it ends (not Ractor slots: a block cannot cross into a Ractor). +lowlevel_error_handler+: see Link.
    # +tag+: shown in the process title.
    # +extra_slots+: the read end of the shepherd's pipe carrying this worker's share of extra slots, or
    # nil. +ractors+: every slot is a Ractor. +fibers+: every slot (+threads+ of them) is a fiber of one
    # thread (FiberReactor), which runs +on_thread_start+ and +on_thread_exit+ once. +multithread+:
    # rack.multithread (default threads > 1; the shepherd says true when extra slots may run).
    # +scheduling+: "batch" or "normal", the CPU scheduling policy the process takes before it boots
    # (Worker::Scheduling), or nil to keep the one it has.
    # +mold+: this worker's end of the shepherd's mold socket (fork_worker), or nil; +refork_after+: the
    # request count at which to ask for the automatic refork, or nil; +spawner+: what the mold builds its
    # workers with (Shepherd::Spawner); +before_refork+, +after_refork+: callables the mold runs.
    # +parked+: a spare's park pipe (read end), or nil. A spare loads the app, then waits on it before
    # anything else: "G" makes it this index's worker (its on_worker_boot hooks run, its slots dial in);
    # EOF means the shepherd no longer wants it, and it exits 0 having run no hook (Shepherd::Spares).
    def initialize(link_path:, index:, threads:, workers:, app: nil, rackup: nil, on_worker_boot: [],
                   booted: nil, lifeline: nil, generation: 1, log: $stderr, on_worker_shutdown: [],
                   lowlevel_error_handler: nil, tag: nil, checkin_interval: 5.0, extra_slots: nil,
                   ractors: false, fibers: false, multithread: threads > 1, on_thread_start: [],
                   on_thread_exit: [], scheduling: nil, mold: nil, refork_after: nil, spawner: nil, before_refork: [],
                   after_refork: [], parked: nil)
      @parked = parked
      @mold = mold
      @refork_after = refork_after
      @spawner = spawner
      @before_refork = before_refork
      @after_refork = after_refork
      @served = 0
      @promoted = false
      @scheduling = scheduling
      @on_thread_start = on_thread_start
      @on_thread_exit = on_thread_exit
      @extra_slots_io = extra_slots
      @ractors = ractors
      @fibers = fibers
      @multithread = multithread
      @checkin_interval = checkin_interval
      @on_worker_shutdown = on_worker_shutdown
      @lowlevel_error_handler = lowlevel_error_handler
      @tag = tag
      @link_path = link_path
      @index = index
      @threads = threads
      @workers = workers
      @app = app
      @rackup = rackup
      @on_worker_boot = on_worker_boot
      @booted = booted
      @lifeline = lifeline
      @generation = generation
      @log = log
      @lock = Mutex.new
      @base = []    # the slots of thread indexes 0...threads
      @extra = []   # running extra slots, thread index threads + position
      @retired = [] # retired extra slots whose link may still be finishing a request
      @stopping = false
    end

    # Boots and serves until every link has ended. Returns the process exit status: 0, 1 when the app or a
    # boot hook raised (logged), or NOT_SHAREABLE.
    def run
      title = "worker #{@index}#{" [#{@tag}]" if @tag} (generation #{@generation})"
      Process.setproctitle("puma-plus: #{"spare " if @parked}#{title}")
      # The app's log lines reach a pipe, not a terminal: unbuffered, they arrive in order with the host's
      # and are not lost when a worker is killed.
      $stdout.sync = true
      Log.source = "worker #{@index}".freeze # frozen: a Ractor slot's log lines read it
      trap("INT", "IGNORE")
      stop_reader, stop_writer = IO.pipe
      trap("TERM") { stop_writer.write_nonblock(".", exception: false) }
      schedule
      failure = boot
      return failure if failure

      Process.setproctitle("puma-plus: #{title}") if @parked

      watch_lifeline(stop_writer) if @lifeline
      # GVL wait per request (Ruby 3.2+; Link reads it): on before the first slot dials in.
      GvlClock.start

      if @ractors
        @ractor_exits = RactorExits.new
      else
        @prototype = RackEnv.prototype(multithread: @multithread, multiprocess: @workers > 1,
                                       slot_kind: @fibers ? RackEnv::FIBER : RackEnv::THREAD)
      end
      if @fibers
        require_relative "worker/fiber_reactor" # loads Async: only workers with fiber slots pay for it
        @reactor = FiberReactor.new(log: @log, context: "worker #{@index}", on_thread_start: @on_thread_start,
                                    on_thread_exit: @on_thread_exit).start
      end
      @lock.synchronize { @base = Array.new(@threads) { |thread_index| start_slot(thread_index) } }
      watch_extra_slots if @extra_slots_io
      watch_mold if @mold
      Thread.new { drain_on_term(stop_reader) }
      @base.each(&:join)
      # Every base link has ended (TERM, promotion, or the host is gone): the extra slots go too.
      extra = @lock.synchronize do
        @stopping = true
        @extra + @retired
      end
      extra.each(&:stop)
      extra.each(&:join)
      @reactor&.stop
      return become_mold(stop_reader) if @lock.synchronize { @promoted }

      run_shutdown_hooks
    end

    private

    # Takes the configured scheduling policy in this, the main thread, before the app or any slot makes a
    # thread: every thread of the process inherits it. A system that refuses is logged; the worker serves on.
    def schedule
      return unless @scheduling

      why = Scheduling.apply(@scheduling)
      Log.line("worker #{@index}: runs without worker_scheduling #{@scheduling}: #{why}", @log) if why
    end

    # nil once booted, else the exit status: NOT_SHAREABLE when the app cannot run in Ractors, else 1, or
    # 0 for a spare the shepherd let go.
    def boot
      @app ||= Rackup.load(@rackup)
      return 0 unless wanted?

      @on_worker_boot.each { |hook| hook.call(@index) }
      share_with_ractors if @ractors
      if @booted
        @booted.write("1")
        check_in
      end
      nil
    rescue ShareableApp::Error => e
      Log.line("worker #{@index}: the app cannot run in Ractors (ractors): #{e.message}", @log)
      NOT_SHAREABLE
    rescue Exception => e # rubocop:disable Lint/RescueException -- report any boot failure, then exit 1
      raise if e.is_a?(SystemExit)

      Log.exception("worker #{@index} failed to boot", e, @log)
      1
    end

    # A spare waits here, app loaded, until the shepherd makes it a worker ("G": true) or lets it go (EOF:
    # false). Not a spare: true at once.
    def wanted?
      return true unless @parked

      go = @parked.read(1)
      @parked.close
      go == "G"
    end

    # Puma's on_worker_shutdown: after the last request, in this process, with the index. Returns the exit
    # status: 1 when a hook raised (logged), else 0.
    def run_shutdown_hooks
      @on_worker_shutdown.each { |hook| hook.call(@index) }
      0
    rescue StandardError, ScriptError => e
      Log.exception("worker #{@index}: on_worker_shutdown hook raised", e, @log)
      1
    end

    # worker_timeout: one byte on the boot pipe every +checkin_interval+ seconds from a Ruby thread, so a
    # process whose threads cannot run stops checking in and the shepherd replaces it. Ends when the
    # shepherd closed its end (the worker was retired) or went away.
    def check_in
      Thread.new do
        loop do
          sleep @checkin_interval
          @booted.write(".")
        end
      rescue IOError, SystemCallError
        nil
      end
    end

    def watch_lifeline(stop_writer)
      Thread.new do
        @lifeline.read # returns at EOF: no process holds the write end any more
        Log.line("worker #{@index}: the shepherd is gone; stopping", @log)
        stop_writer.write_nonblock(".", exception: false)
      end
    end

    # Ractor slots need a shareable app (else boot fails naming what is not, ShareableApp) and a
    # shareable lowlevel_error_handler; a handler that is not (a block) is dropped with a log line, and an
    # app error then gets the worker's plain 500.
    def share_with_ractors
      @app = ShareableApp.make(@app)
      return unless @lowlevel_error_handler

      begin
        @lowlevel_error_handler = ShareableApp.make(@lowlevel_error_handler, name: "lowlevel_error_handler")
      rescue ShareableApp::Error => e
        Log.line("worker #{@index}: lowlevel_error_handler is not supported with ractors (#{e.message}); " \
                 "app errors get a plain 500", @log)
        @lowlevel_error_handler = nil
      end
    end

    # Starts the slot +thread_index+ (a thread, or a Ractor) and returns it. Called under @lock.
    def start_slot(thread_index)
      options = { app: @app, thread_index: thread_index, worker_index: @index, path: @link_path,
                  generation: @generation, lowlevel_error_handler: @lowlevel_error_handler }
      options[:on_served] = method(:served) if @refork_after
      slot = if @ractors
               RactorSlot.new(multithread: @multithread, multiprocess: @workers > 1, exits: @ractor_exits, **options)
             elsif @reactor # the reactor's one thread runs the thread hooks
               Slot.new(prototype: @prototype, log: @log, reactor: @reactor, **options)
             else
               Slot.new(prototype: @prototype, log: @log, on_thread_start: @on_thread_start,
                        on_thread_exit: @on_thread_exit, **options)
             end
      slot.start
      slot.stop if @stopping
      slot
    end

    # Reads this worker's share of extra slots from the shepherd's pipe until it closes.
    def watch_extra_slots
      Thread.new do
        while (bytes = @extra_slots_io.read(4)) && bytes.bytesize == 4
          resize_extra(bytes.unpack1(EXTRA_SLOTS_FORMAT))
        end
      rescue IOError, SystemCallError
        nil
      end
    end

    # Runs +count+ extra slots: starts the missing ones, or retires the highest (each finishes its request
    # and leaves with GOAWAY(0)). Ignored once the worker is stopping.
    def resize_extra(count)
      @lock.synchronize do
        return if @stopping

        before = @extra.size
        @retired.reject!(&:done?)
        @extra << start_slot(@threads + @extra.size) while @extra.size < count
        while @extra.size > count
          slot = @extra.pop
          slot.stop
          @retired << slot
        end
        Log.line("worker #{@index}: extra slots #{count} (was #{before})", @log) unless count == before
      end
    end

    def drain_on_term(stop_reader)
      stop_reader.read(1)
      drain
    end

    # Stops taking requests: every link leaves after the request it may be serving; links still idle after
    # DRAIN_GRACE are closed. Returns at once if a drain is under way (TERM during a promotion, or after it).
    def drain
      slots = @lock.synchronize do
        return if @draining

        @draining = true
        @stopping = true
        @base + @extra + @retired
      end
      slots.each(&:stop)
      sleep DRAIN_GRACE
      slots.each(&:close_if_idle)
    end

    # fork_worker: one more request served (a link's thread); at +refork_after+ the shepherd hears "R".
    def served
      count = @lock.synchronize { @served += 1 }
      return unless count == @refork_after

      @booted&.write("R")
    rescue IOError, SystemCallError
      nil # the shepherd closed the pipe (this worker is retiring)
    end

    # fork_worker: waits for the shepherd's "M" on the mold socket, then drains like TERM; #run then
    # becomes the mold once every link has ended.
    def watch_mold
      Thread.new do
        if @mold.sysread(1) == "M" # unbuffered: the mold reads descriptors from this socket later
          @lock.synchronize { @promoted = true }
          drain
        end
      rescue IOError, SystemCallError
        nil
      end
    end

    # The rest of this process's life, as the mold: returns its exit status.
    def become_mold(stop_reader)
      Mold.new(index: @index, socket: @mold, booted: @booted, spawner: @spawner, app: @app, log: @log,
               before_refork: @before_refork, after_refork: @after_refork,
               inherited: [@extra_slots_io, @booted, @mold, stop_reader].compact).run
    end
  end
end

require_relative "shareable_app"
require_relative "worker/link"
require_relative "worker/slot"
require_relative "worker/ractor_exits"
require_relative "worker/ractor_slot"
require_relative "worker/scheduling"
require_relative "worker/mold"
