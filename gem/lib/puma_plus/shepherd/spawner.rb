# frozen_string_literal: true

# How a worker process is made (shepherd or mold → worker): the Worker's arguments from the configuration,
# the fork hooks around the fork, and the forked child's life until it exits. Used by the shepherd and,
# through its copy from the fork, by the mold (Worker::Mold).

module PumaPlus
  class Shepherd
    class Spawner
      def initialize(config:, link_path:, lifeline:, generation:, log:)
        @config = config
        @link_path = link_path
        @lifeline = lifeline
        @generation = generation
        @log = log
      end

      # The Worker of index +index+: +app+ loaded (or nil: it loads the rackup), its ends of the boot and
      # extra-slots pipes and of its mold socket (nil without fork_worker), +refork_after+ or nil, and the
      # read end of its park pipe when it is a spare (Spares), else nil.
      def build(index, app:, booted:, extra_slots:, mold:, refork_after:, parked: nil)
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
                   before_refork: @config.hooks_for(:before_refork), after_refork: @config.hooks_for(:after_refork),
                   parked: parked)
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
  end
end
