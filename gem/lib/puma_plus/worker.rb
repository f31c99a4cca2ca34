# frozen_string_literal: true

# One forked worker process: it loads the app (unless the shepherd preloaded it), runs on_worker_boot
# hooks, and starts one thread per slot, each a Worker::Link dialling in to the host. It sits between
# the shepherd (which forks and replaces it) and the app (which its threads call).
#
# Signals: INT is ignored (the host decides when to stop). TERM stops taking requests: every link sends
# GOAWAY(0), finishes the request it may be serving, and ends when the host closes it; links still idle
# after DRAIN_GRACE seconds are closed. When every link has ended, #run returns and the process exits.

require_relative "wire"
require_relative "log"
require_relative "rack_env"
require_relative "rackup"

module PumaPlus
  class Worker
    # Seconds an idle link waits, after TERM and its GOAWAY, for the host to close it.
    DRAIN_GRACE = 2.0
    # Seconds before a broken link is replaced, doubling up to REDIAL_MAX.
    REDIAL_DELAY = 0.1
    REDIAL_MAX = 5.0

    # +link_path+: link.sock. +index+: worker index (0...workers). +threads+: links (slots) to open.
    # +workers+: how many worker processes the shepherd runs (for rack.multiprocess). +app+: a
    # preloaded app, or nil to load +rackup+ here. +on_worker_boot+: callables run with the index after
    # the app is loaded. +booted+: an IO to which one byte is written once booted (then one per
    # +checkin_interval+ seconds, worker_timeout), so the
    # shepherd can tell a boot failure from a later crash. +lifeline+: the read end of a pipe whose
    # write end only the shepherd holds; its EOF means the shepherd died, and the worker then stops as
    # on TERM rather than live on as an orphan.
    # +on_worker_shutdown+: callables run with the index after the last link ended, before the process
    # exits. +lowlevel_error_handler+: see Link. +tag+: shown in the process title.
    def initialize(link_path:, index:, threads:, workers:, app: nil, rackup: nil, on_worker_boot: [],
                   booted: nil, lifeline: nil, generation: 1, log: $stderr, on_worker_shutdown: [],
                   lowlevel_error_handler: nil, tag: nil, checkin_interval: 5.0)
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
      @links = []
      @stopping = false
    end

    # Boots and serves until every link has ended. Returns the process exit status: 0, or 1 when the
    # app or a boot hook raised (logged).
    def run
      Process.setproctitle("puma-plus: worker #{@index}#{" [#{@tag}]" if @tag} (generation #{@generation})")
      # The app's log lines reach a pipe, not a terminal: unbuffered, they arrive in order with the host's
      # and are not lost when a worker is killed.
      $stdout.sync = true
      Log.source = "worker #{@index}"
      trap("INT", "IGNORE")
      stop_reader, stop_writer = IO.pipe
      trap("TERM") { stop_writer.write_nonblock(".", exception: false) }
      return 1 unless boot

      watch_lifeline(stop_writer) if @lifeline

      prototype = RackEnv.prototype(multithread: @threads > 1, multiprocess: @workers > 1)
      threads = Array.new(@threads) do |thread_index|
        Thread.new do
          Thread.current.name = "puma-plus link #{thread_index}"
          serve_slot(prototype, thread_index)
        end
      end
      Thread.new { drain_on_term(stop_reader) }
      threads.each(&:join)
      run_shutdown_hooks
    end

    private

    def boot
      @app ||= Rackup.load(@rackup)
      @on_worker_boot.each { |hook| hook.call(@index) }
      if @booted
        @booted.write("1")
        check_in
      end
      true
    rescue Exception => e # rubocop:disable Lint/RescueException -- report any boot failure, then exit 1
      raise if e.is_a?(SystemExit)

      Log.exception("worker #{@index} failed to boot", e, @log)
      false
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

    # One slot for the life of the process: a link that breaks (the host closed it after a protocol
    # error, a write failed) is replaced by a new one after REDIAL_DELAY, doubling up to REDIAL_MAX, so
    # the worker never runs on with a slot fewer; a link that ends for good ends the thread.
    def serve_slot(prototype, thread_index)
      delay = REDIAL_DELAY
      loop do
        link = Link.new(app: @app, prototype: prototype, worker_index: @index, thread_index: thread_index,
                        path: @link_path, generation: @generation, log: @log,
                        lowlevel_error_handler: @lowlevel_error_handler)
        @links[thread_index] = link
        link.stop if @stopping
        break if link.run || @stopping

        Log.line("worker #{@index} thread #{thread_index}: link broke; dialling in again in #{delay} s", @log)
        sleep delay
        delay = [delay * 2, REDIAL_MAX].min
      end
    end

    def drain_on_term(stop_reader)
      stop_reader.read(1)
      @stopping = true
      @links.each(&:stop)
      sleep DRAIN_GRACE
      @links.each(&:close_if_idle)
    end
  end
end

require_relative "worker/link"
