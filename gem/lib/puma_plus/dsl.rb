# frozen_string_literal: true

# The config file language (config/puma-plus.rb, docs/CONFIG.md "Config file directives"), evaluated once
# by the shepherd before anything is forked. Each directive below records one setting; the result beats
# the environment and the defaults and is beaten by flags (PumaPlus::Configuration). A typo or bad value
# is reported as "<file>:<line>: <directive>: <problem>".
#
#   bind "tcp://127.0.0.1:3000"       # URI, repeatable          (default tcp://0.0.0.0:9292)
#   bind "ssl://0.0.0.0:9443?cert=cert.pem&key=key.pem"  # TLS (h2 and http/1.1 by ALPN; h3 if loaded)
#   ssl_bind "0.0.0.0", 9443, { cert: "cert.pem", key: "key.pem" }  # puma's form of the same
#   bind "unix:///run/app.sock?umask=0111"  # a socket file (puma's umask=, mode=, backlog=)
#   bind_to_activated_sockets "only"  # systemd's LISTEN_FDS sockets are the binds (true: added to them)
#   port 3000, "127.0.0.1"            # integer, optional host   (env PORT)
#   workers 2                         # integer or :auto (processors) (default 0; env WEB_CONCURRENCY)
#   threads 5, 5                      # min, max; max is used    (default 0, 5; env PUMA_MAX_THREADS,
#                                     #                           RAILS_MAX_THREADS)
#   fibers 50                         # N fiber slots per worker, all on one thread under a fiber scheduler,
#                                     #   instead of `threads` slots (default none; docs/CONFIG.md "fibers")
#   environment "production"          # string                   (default development; env RACK_ENV, RAILS_ENV)
#   rackup "app.ru"                   # path                     (default config.ru)
#   preload_app!                      # load the app in the shepherd before forking (default off)
#   before_fork { DB.disconnect }     # block, run in the shepherd before forking the workers
#   on_worker_boot { |index| DB.connect }  # block, run in each worker after fork
#   activate_control_app "tcp://127.0.0.1:9293", auth_token: "s3cret"
#                                     # (default token: generated at boot, printed once, in the state
#                                     #   file; no_token: true only on a loopback address)
#   metrics_url "tcp://0.0.0.0:9394"  # read-only /metrics and dashboard listener, no token (default none)
#   controller_jar_dir "/srv/jars"    # where `ctl controller JAR` may load from (default none: refused)
#   persistent_timeout 75             # seconds a keep-alive connection may idle (default 20)
#   first_data_timeout 10             # seconds to wait for a request's first bytes and each next body byte (default 30)
#   write_timeout 30                  # seconds a response write may make no progress (default 10)
#   header_timeout 5                  # seconds a request's header section may take in all (default 10)
#   max_connections 10_000            # connections per listener; beyond them clients wait in the backlog
#                                     #   (default: from the host's open-file limit)
#   max_pipelined_requests 4          # requests read ahead of the one being answered (default 16)
#   http_content_length_limit 10_000_000   # bytes; larger bodies get 413 (default none)
#   worker_boot_timeout 120           # seconds a worker may take to dial in (default 60)
#   shutdown_timeout 10               # seconds a graceful stop waits (default 30)
#   log_requests                      # the host logs one line per request with its timing points
#                                     #                          (default false; alone means true, as in puma)
#   server_timing                     # the host adds Server-Timing: queue;dur=…, app;dur=… to responses
#                                     #                          (default false; alone means true)
#   bundles "h1", "h2", "h3"          # protocol bundles to load (default h1, h2; h3 loads Kwik)
#   on_worker_shutdown { |index| }    # block, run in each worker after its last request, before it exits
#   on_worker_fork { |index| }        # block, run in the shepherd just before forking worker +index+
#   after_worker_fork { |index| }     # block, run in the shepherd just after forking worker +index+
#   worker_timeout 60                 # seconds a booted worker may go without checking in (default 60)
#   worker_shutdown_timeout 30        # seconds a stopping worker may take before KILL (default 30)
#   pidfile "tmp/pids/server.pid"     # the host's pid (the process to signal), written at boot
#   state_path "tmp/puma.state"       # YAML: pid, control_url, control_auth_token (for `puma-plus ctl -S`)
#   stdout_redirect "log/out", "log/err", true   # paths; append (default false)
#   tag "shop"                        # shown in process titles
#   quiet                             # no request log lines (puma's quiet; alone means true)
#   log_format "json"                 # "text" (default) or "json": one JSON object a line
#   worker_scheduling :normal         # :batch (default) or :normal: the workers' CPU scheduling policy
#   lowlevel_error_handler { |error, env| [500, {}, ["oops"]] }   # the response when the app raises
#   autoscale min: 1, max: 8, target_queue_p95: "50ms", actuator: :fork, bridge: :ractor
#                                     # size the workers from queue time (default off; docs/CONTROL.md);
#                                     #   bridge: :ractor or :thread slots cover a fork's dead time
#                                     #   (default none; :ractor needs `ractors`)
#   ractors                           # every slot is a Ractor, not a thread (default false; experimental,
#                                     #   the app must be shareable: docs/RACK.md "Ractors")
#   decision_log "log/decisions.jsonl"  # one JSON line per autoscaling tick (default none)
#   client_timeout 10                 # seconds your clients (or load balancer) wait (default 10)
#   shed_wait_limit 2.5               # seconds of predicted wait above which a request gets 503 at once
#                                     #   (default client_timeout / 4; false = never shed)
#   health_check_path "/up", answer: :host   # never shed, never queued behind app requests
#                                     #   (default "/health", answer: :app; false = none)
#   websocket_max_message 65_536      # bytes; a bigger WebSocket message closes its connection with 1009
#                                     #   (default 1048576; docs/WEBSOCKETS.md)
#   websocket_outbound_limit 262_144  # bytes waiting for a WebSocket client above which it is closed with
#                                     #   1008 (default 1048576)
#   websocket_ping_interval 15        # seconds of client silence before a ping, closed after two; 0: no pings
#                                     #   (default 30)
#   websocket_max_connections 50_000  # held WebSocket connections at most; more upgrades get 503 (default 10000)
#   webtransport_sessions_per_connection 4  # WebTransport sessions one QUIC connection holds; one more
#                                     #   CONNECT gets 429 (default 16; docs/WEBTRANSPORT.md "Limits")
#   webtransport_max_sessions 50_000  # WebTransport sessions held in all, counted apart from WebSockets;
#                                     #   one more CONNECT gets 503 (default 10000)
#   webtransport_streams_per_session 16  # client streams one session reads at once, one more refused; and
#                                     #   streams open for the app's writes (default 64)
#   webtransport_max_message 65_536   # bytes of one stream or datagram; a longer stream closes its session with
#                                     #   1009, a longer datagram is dropped (default 1048576)
#   webtransport_outbound_limit 262_144  # bytes the app sent a session, not yet written, above which it is
#                                     #   closed with 1008 (default 1048576)
#
#   plugin :tmp_restart               # a puma plugin, run unchanged (PumaPlus::PluginLauncher)
#   after_booted { }                  # block, run in the shepherd once every worker has booted
#   after_stopped { }                 # block, run in the shepherd after its workers stopped (not on a hot restart)
#   before_restart { }                # block, run in the shepherd the host retires for a hot restart
#   after_worker_shutdown { |worker| }  # block, run in the shepherd after a worker process exited
#   before_thread_start { }           # block, run in each slot thread of a worker as it starts
#   before_thread_exit { }            # block, run in each slot thread of a worker before it ends
#   cluster { preload_app! }          # puma 8: evaluated after every file when workers > 0 (single: when 0)
#
# Puma's other names (ALIASES: puma 7's before_worker_boot, on_booted, ...) are the same directives. A
# puma directive with no equivalent here (UNSUPPORTED, dsl/unsupported.rb) is recorded in #unsupported with
# its file and line, and the shepherd reports it; any other unknown name is an error.

require_relative "setting"
require_relative "config_error"
require_relative "plugin_launcher"
require_relative "dsl/unsupported"

module PumaPlus
  class DSL
    # Evaluates the config file at +path+ (as given, for messages). Returns the DSL, whose #settings
    # hold only what the file set and whose #hooks hold the blocks. Raises ConfigError.
    def self.evaluate(path)
      source = begin
        File.read(path)
      rescue SystemCallError => e
        raise ConfigError, "cannot read config file #{path}: #{e.message}"
      end
      dsl = new(path)
      dsl.__evaluate(source)
      dsl
    end

    # Evaluates puma 8's `single { }` or `cluster { }` +block+ (recorded by the DSL of +path+, the file it
    # is written in) as puma does, after every config file. Returns the DSL. Raises ConfigError.
    def self.evaluate_block(path, block)
      dsl = new(path)
      dsl.__evaluate(nil, &block)
      dsl
    end

    # Puma's other names for directives here, puma's name => ours (puma 7 renamed the hooks; puma's
    # after_worker_boot has always meant after_worker_fork).
    ALIASES = {
      before_worker_boot: :on_worker_boot, before_worker_shutdown: :on_worker_shutdown,
      before_worker_fork: :on_worker_fork, after_worker_boot: :after_worker_fork, on_booted: :after_booted,
      on_stopped: :after_stopped, on_restart: :before_restart, on_thread_start: :before_thread_start,
      on_thread_exit: :before_thread_exit, on_refork: :before_refork
    }.freeze

    # The fast actuators `autoscale bridge:` accepts (docs/CONTROL.md).
    BRIDGES = %w[ractor thread].freeze

    attr_reader :settings, :hooks, :unsupported
    # Plugins named by `plugin` (loaded as the directive runs, as puma does), in order.
    attr_reader :plugin_names
    # puma 8's `single { }` and `cluster { }` blocks: { single: [...], cluster: [...] } (Configuration
    # evaluates one kind after every file, by the resolved worker count).
    attr_reader :mode_blocks
    # Options plugins' own directives record (puma's @options; a plugin reads them as launcher.options).
    attr_reader :options
    # Where each setting was set: { workers: "config/puma.rb:3", ... } (the last directive that set it).
    attr_reader :sources

    def initialize(path)
      @path = path
      @settings = {}
      @sources = {}
      @unsupported = []
      @plugin_names = []
      @mode_blocks = { single: [], cluster: [] }
      @options = {}
      @hooks = (HOOK_DIRECTIVES + [:lowlevel_error_handler]).to_h { |name| [name, []] }
    end

    # The file this DSL evaluated (double underscores, like #__evaluate: no config file calls it).
    def __path
      @path
    end

    def __evaluate(source, &block)
      block ? instance_exec(&block) : instance_eval(source, @path, 1)
    rescue ConfigError
      raise
    rescue SyntaxError => e
      raise ConfigError, e.message
    rescue ScriptError, StandardError => e
      line = e.backtrace_locations&.find { |l| l.path == @path }&.lineno || "?"
      top = e.backtrace_locations&.first
      if e.is_a?(ArgumentError) && top&.path == __FILE__
        # a directive called with the wrong number of arguments
        raise ConfigError, "#{@path}:#{line}: #{top.label}: #{e.message}"
      end

      raise ConfigError, "#{@path}:#{line}: #{e.class}: #{e.message}"
    end

    # Directives that set the setting of their name from their one argument, checked by the Setting method
    # named here (each raises ConfigError naming the directive).
    ONE_VALUE = {
      environment: :string, rackup: :string, persistent_timeout: :seconds,
      first_data_timeout: :seconds, write_timeout: :seconds, header_timeout: :seconds, worker_boot_timeout: :seconds,
      shutdown_timeout: :seconds, worker_timeout: :seconds, worker_shutdown_timeout: :seconds, pidfile: :string,
      state_path: :string, tag: :string, log_format: :log_format, worker_scheduling: :worker_scheduling, decision_log: :string, client_timeout: :duration,
      websocket_max_message: :positive_integer, websocket_outbound_limit: :positive_integer,
      websocket_ping_interval: :non_negative_integer, websocket_max_connections: :positive_integer,
      webtransport_sessions_per_connection: :positive_integer, webtransport_max_sessions: :positive_integer,
      webtransport_streams_per_session: :positive_integer, webtransport_max_message: :positive_integer,
      webtransport_outbound_limit: :positive_integer,
      fibers: :positive_integer, spare_workers: :non_negative_integer
    }.freeze
    # Switches, puma's form: the directive alone means true. Directive => setting. `quiet` silences request
    # logging; with `ractors` every slot of a worker (base and extra) is a Ractor.
    SWITCHES = { preload_app!: :preload_app, log_requests: :log_requests, server_timing: :server_timing,
                 quiet: :quiet, ractors: :ractors }.freeze
    # Hook directives: each takes a block, kept in the order given (docs/CONFIG.md, "Hooks").
    HOOK_DIRECTIVES = %i[before_fork on_worker_boot on_worker_shutdown on_worker_fork after_worker_fork after_booted
                         after_stopped before_restart after_worker_shutdown before_thread_start
                         before_thread_exit before_refork after_refork].freeze

    # Defined from source, not define_method, so a call with the wrong arguments names the directive.
    ONE_VALUE.each do |name, check|
      class_eval(<<~RUBY, __FILE__, __LINE__ + 1)
        def #{name}(value)
          directive(:#{name}) { @settings[:#{name}] = Setting.#{check}("#{name}", value) }
        end
      RUBY
    end
    SWITCHES.each do |name, setting|
      class_eval(<<~RUBY, __FILE__, __LINE__ + 1)
        def #{name}(answer = true)
          directive(:#{name}) { @settings[:#{setting}] = Setting.boolean("#{name}", answer) }
        end
      RUBY
    end
    HOOK_DIRECTIVES.each do |name|
      class_eval(<<~RUBY, __FILE__, __LINE__ + 1)
        def #{name}(&block)
          directive(:#{name}) { @hooks[:#{name}] << hook("#{name}", block) }
        end
      RUBY
    end

    ALIASES.each { |puma_name, ours| alias_method puma_name, ours }

    # puma's fork_worker: workers fork from a mold, a worker 0 promoted once it has served +after_requests+
    # requests (0: only on `refork`), so they start warm (docs/CONFIG.md, "fork_worker and the mold").
    def fork_worker(after_requests = 1000)
      directive(:fork_worker) { @settings[:fork_worker] = Setting.non_negative_integer("fork_worker", after_requests) }
    end

    # puma's `workers :auto` (7.2): as many workers as processors.
    def workers(count)
      directive(:workers) { @settings[:workers] = Setting.workers("workers", count) }
    end

    # puma 8: directives for single mode (workers 0) or cluster mode (workers > 0), evaluated after every
    # config file once the worker count is known (flags included).
    def single(&block)
      directive(:single) { @mode_blocks[:single] << hook("single", block) }
    end

    def cluster(&block)
      directive(:cluster) { @mode_blocks[:cluster] << hook("cluster", block) }
    end

    # Loads puma plugin +name+ now, as puma does (so a directive it adds can follow), from
    # puma/plugin/NAME on the load path; the shepherd starts it at boot (PumaPlus::PluginLauncher).
    # A plugin that is not installed is reported and ignored (PluginLauncher.load).
    def plugin(name)
      missing = nil
      directive(:plugin) do
        name = Setting.string("plugin", name)
        missing = PluginLauncher.load(name)
        @plugin_names << name unless missing || @plugin_names.include?(name)
      end
      report(:plugin, "#{name}: #{missing}", missing: true) if missing
    end

    def bind(uri)
      directive(:bind) { (@settings[:binds] ||= []) << Setting.listen_bind("bind", uri) }
    end

    # puma's directive: systemd's activated sockets (LISTEN_FDS) become binds as well (true) or the only
    # binds ("only"); false leaves binds as they are (a bind matching an activated socket adopts it anyway).
    def bind_to_activated_sockets(value = true)
      directive(:bind_to_activated_sockets) do
        @settings[:bind_to_activated_sockets] = Setting.activated_sockets("bind_to_activated_sockets", value)
      end
    end

    # puma's directive: ssl_bind host, port, { cert: PATH, key: PATH } (verify_mode: "none" accepted).
    def ssl_bind(host, port, opts = {})
      directive(:ssl_bind) do
        opts = opts.transform_keys(&:to_sym)
        unknown = opts.keys - %i[cert key verify_mode]
        raise ConfigError, "ssl_bind: unknown option #{unknown.first.inspect}" unless unknown.empty?
        raise ConfigError, "ssl_bind: only verify_mode \"none\" is supported" if opts[:verify_mode] && opts[:verify_mode].to_s != "none"

        uri = Setting.ssl_bind_uri(host, Setting.port("ssl_bind", port), cert: opts[:cert], key: opts[:key])
        (@settings[:binds] ||= []) << Setting.listen_bind("ssl_bind", uri)
      end
    end

    # Protocol bundles to load: any of "h1", "h2", "h3"; h1 is required (it owns the TCP listeners).
    def bundles(*names)
      directive(:bundles) { @settings[:bundles] = Setting.bundles("bundles", names.flatten) }
    end

    def port(number, host = "0.0.0.0")
      directive(:port) { (@settings[:binds] ||= []) << Setting.bind_for_port("port", number, host) }
    end

    def threads(min, max = nil)
      min, max = 0, min if max.nil?
      directive(:threads) { @settings[:min_threads], @settings[:threads] = Setting.threads("threads", min, max) }
    end

    # puma-plus's own: autoscaling on queue time (docs/CONTROL.md). Every keyword is optional.
    def autoscale(answer = true, min: nil, max: nil, target_queue_p95: nil, actuator: nil, bridge: nil)
      directive(:autoscale) do
        @settings[:autoscale] = Setting.boolean("autoscale", answer)
        @settings[:autoscale_min] = Setting.integer("autoscale min", min, min: 1) unless min.nil?
        @settings[:autoscale_max] = Setting.integer("autoscale max", max, min: 1) unless max.nil?
        unless target_queue_p95.nil?
          @settings[:autoscale_target_queue_p95] = Setting.duration("autoscale target_queue_p95", target_queue_p95)
        end
        unless actuator.nil?
          name = Setting.string("autoscale actuator", actuator)
          raise ConfigError, "autoscale actuator: expected :fork, got #{actuator.inspect}" unless name == "fork"

          @settings[:autoscale_actuator] = name
        end
        unless bridge.nil?
          name = Setting.string("autoscale bridge", bridge)
          unless BRIDGES.include?(name)
            raise ConfigError, "autoscale bridge: expected :ractor or :thread, got #{bridge.inspect}"
          end

          @settings[:autoscale_bridge] = name
        end
      end
    end

    # `shed_wait_limit false` switches shedding off.
    def shed_wait_limit(seconds)
      directive(:shed_wait_limit) do
        @settings[:shed_wait_limit] = seconds == false ? false : Setting.duration("shed_wait_limit", seconds)
      end
    end

    # `health_check_path false` removes the health check path.
    def health_check_path(path, answer: :app)
      directive(:health_check_path) do
        @settings[:health_check_path] = path == false ? false : Setting.path("health_check_path", path)
        answer = Setting.string("health_check_path answer", answer)
        raise ConfigError, "health_check_path answer: expected :app or :host, got #{answer.inspect}" unless %w[app host].include?(answer)

        @settings[:health_check_answer] = answer
      end
    end

    # puma's form, including `no_token: true` (no token) and `umask:` (for unix:// URLs, which are reported).
    def activate_control_app(url = "auto", auth_token: nil, no_token: false, umask: nil)
      unless url.is_a?(String) && url.start_with?("tcp://")
        return report(:activate_control_app, "the control app listens on tcp://HOST:PORT only, not #{url.inspect}")
      end

      directive(:activate_control_app) do
        @settings[:control_url] = Setting.bind("activate_control_app", url)
        @settings[:control_token] = Setting.string("activate_control_app auth_token", auth_token) unless auth_token.nil?
        # false: no token at all (allowed on a loopback URL only, Configuration checks); an unset token is
        # generated by the host at boot, as puma's random_token.
        @settings[:control_token] = false if Setting.boolean("activate_control_app no_token", no_token)
      end
    end

    # The read-only listener for /metrics and the dashboard, without the control app's token (any address:
    # it serves nothing that changes state; docs/SECURITY.md).
    def metrics_url(url)
      directive(:metrics_url) do
        @settings[:metrics_url] = Setting.bind("metrics_url", url)
      end
    end

    # The only directory `puma-plus ctl controller JAR` (POST /controller?jar=) may load a jar from.
    def controller_jar_dir(path)
      directive(:controller_jar_dir) do
        @settings[:controller_jar_dir] = Setting.string("controller_jar_dir", path)
      end
    end

    # nil: the host derives the bound from its open-file limit (the default).
    def max_connections(count)
      directive(:max_connections) do
        @settings[:max_connections] = count.nil? ? nil : Setting.integer("max_connections", count, min: 1)
      end
    end

    # 0: no read-ahead, one request at a time (puma's behaviour).
    def max_pipelined_requests(count)
      directive(:max_pipelined_requests) do
        @settings[:max_pipelined_requests] = Setting.integer("max_pipelined_requests", count)
      end
    end

    def http_content_length_limit(bytes)
      directive(:http_content_length_limit) do
        @settings[:http_content_length_limit] = bytes.nil? ? nil : Setting.integer("http_content_length_limit", bytes, min: 1)
      end
    end

    # Puma's form: a block, or an object that responds to call(error, env[, status]); the last one wins.
    def lowlevel_error_handler(handler = nil, &block)
      directive(:lowlevel_error_handler) do
        handler ||= block
        raise ConfigError, "lowlevel_error_handler: expected a block or an object with #call" unless handler.respond_to?(:call)

        @hooks[:lowlevel_error_handler] = [handler]
      end
    end

    # Puma's: stdout and stderr of the host, shepherd and workers go to these files (appended with
    # +append+ true, else truncated at boot).
    def stdout_redirect(stdout = nil, stderr = nil, append = false)
      directive(:stdout_redirect) do
        @settings[:stdout_path] = stdout.nil? ? nil : Setting.string("stdout_redirect stdout", stdout)
        @settings[:stderr_path] = stderr.nil? ? nil : Setting.string("stdout_redirect stderr", stderr)
        @settings[:redirect_append] = Setting.boolean("stdout_redirect append", append)
      end
    end

    # Any other name in the config file is a mistake (a typo), unless it is a puma directive we do not have:
    # that one is recorded and reported, never silently ignored.
    def method_missing(name, *_args, &_block)
      return report(name, UNSUPPORTED[name]) if UNSUPPORTED.include?(name)

      raise ConfigError, "#{@path}:#{caller_line}: unknown directive #{name.to_s.inspect}"
    end

    # puma's `load` (another config file); Kernel#load would otherwise answer it.
    def load(*_paths)
      report(:load, UNSUPPORTED[:load])
    end

    def respond_to_missing?(name, _include_private = false)
      UNSUPPORTED.include?(name)
    end

    private

    def report(name, reason, missing: false)
      @unsupported << Unsupported.new(directive: name.to_s, file: @path, line: caller_line, reason: reason, missing: missing)
      nil
    end

    # Runs a directive's body, prefixing any ConfigError with file:line. Directive errors already name
    # the directive; ArgumentError (wrong arity) is reported the same way.
    def directive(name)
      before = @settings.transform_values { |v| v.is_a?(Array) ? v.dup : v }
      yield
      @settings.each { |key, value| @sources[key] = "#{@path}:#{caller_line}" if !before.key?(key) || before[key] != value }
      nil
    rescue ConfigError => e
      raise ConfigError, "#{@path}:#{caller_line}: #{e.message}"
    rescue ArgumentError, TypeError => e
      raise ConfigError, "#{@path}:#{caller_line}: #{name}: #{e.message}"
    end

    def hook(name, block)
      raise ConfigError, "#{name}: expected a block" unless block

      block
    end

    # The line of the config file that called the current directive.
    def caller_line
      caller_locations.find { |location| location.path == @path }&.lineno || "?"
    end
  end
end
