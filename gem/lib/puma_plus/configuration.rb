# frozen_string_literal: true

# The resolved configuration (docs/CONFIG.md): evaluated once in the shepherd, before the app is loaded,
# from four layers — flags beat the config file, the file beats the environment, the environment beats
# the defaults — and sent to the host as the CONFIG frame (#to_json: every key present, null when unset).
# The host never reads the config file; the shepherd also uses the result to fork its workers.

require "json"
require_relative "setting"
require_relative "config_error"
require_relative "command_line"
require_relative "dsl"
require_relative "dev_certificate"
require_relative "log"

module PumaPlus
  class Configuration
    DEFAULT_CONFIG_FILE = "config/puma-plus.rb"
    # With no -C, the first of these that exists is read before DEFAULT_CONFIG_FILE (puma's own lookup;
    # ENV is the environment the flags or RACK_ENV/RAILS_ENV give), so puma-plus's file wins where both set
    # something.
    PUMA_CONFIG_FILES = ["config/puma/%<env>s.rb", "config/puma.rb"].freeze
    DEFAULTS = {
      binds: ["tcp://0.0.0.0:9292"].freeze,
      bind_to_activated_sockets: false,
      workers: 0,
      min_threads: 0,
      threads: 5,
      fibers: nil,
      rackup: "config.ru",
      environment: "development",
      preload_app: false,
      control_url: nil,
      control_token: nil,
      persistent_timeout: 20,
      first_data_timeout: 30,
      write_timeout: 10,
      header_timeout: 10,
      max_connections: nil,
      max_pipelined_requests: 16,
      http_content_length_limit: nil,
      worker_boot_timeout: 60,
      shutdown_timeout: 30,
      log_requests: false,
      server_timing: false,
      tls_cert: nil,
      tls_key: nil,
      bundles: %w[h1 h2].freeze,
      worker_timeout: 60,
      worker_shutdown_timeout: 30,
      pidfile: nil,
      state_path: nil,
      stdout_path: nil,
      stderr_path: nil,
      redirect_append: false,
      tag: nil,
      quiet: false,
      log_format: "text",
      worker_scheduling: "batch",
      autoscale: false,
      autoscale_min: 1,
      autoscale_max: 8,
      autoscale_target_queue_p95: 0.05,
      autoscale_actuator: "fork",
      autoscale_bridge: nil,
      ractors: false,
      fork_worker: false,
      spare_workers: 0,
      decision_log: nil,
      client_timeout: 10,
      shed_wait_limit: nil,
      health_check_path: "/health",
      health_check_answer: "app",
      metrics_url: nil,
      controller_jar_dir: nil,
      websocket_max_message: 1_048_576,
      websocket_outbound_limit: 1_048_576,
      websocket_ping_interval: 30,
      websocket_max_connections: 10_000,
      webtransport_sessions_per_connection: 16,
      webtransport_max_sessions: 10_000,
      webtransport_streams_per_session: 64,
      webtransport_max_message: 1_048_576,
      webtransport_outbound_limit: 1_048_576
    }.freeze
    # Settings that are paths, made absolute against the working directory at resolution.
    PATHS = %i[pidfile state_path stdout_path stderr_path decision_log controller_jar_dir].freeze
    HOOKS = (DSL::HOOK_DIRECTIVES + [:lowlevel_error_handler]).freeze
    # The host starts bundles in this order: protocol-h1 last, since it owns the TCP listeners and hands
    # connections to the others (h2 by ALPN or h2c, h3 on the UDP port of each ssl:// bind).
    BUNDLE_START_ORDER = { "h2" => "protocol-h2", "h3" => "protocol-h3", "h1" => "protocol-h1" }.freeze
    # Shedding's default limit is this share of client_timeout (docs/CONTROL.md, "Shedding").
    SHED_SHARE_OF_CLIENT_TIMEOUT = 0.25
    # Bundles `autoscale` adds: the actuator it names and the policy.
    AUTOSCALE_BUNDLES = { "fork" => %w[actuator-fork controller] }.freeze
    # The bundle `autoscale bridge:` adds beside them.
    BRIDGE_BUNDLES = { "ractor" => "actuator-ractor", "thread" => "actuator-thread" }.freeze
    # The bundle `fibers` adds without `autoscale`: its concurrency limiter (docs/CONTROL.md).
    LIMIT_BUNDLE = "controller"

    # Resolves the configuration from +argv+ (the user's flags), the environment +env+ and the config
    # files (#config_paths). Raises ConfigError.
    def self.resolve(argv, env: ENV, cwd: Dir.pwd)
      flags = CommandLine.new(argv)
      $LOAD_PATH.unshift(*flags.load_paths.map { |path| File.expand_path(path, cwd) }) # puma's -I
      env_sources = {}
      env_settings = from_environment(env, env_sources)
      environment = flags.settings[:environment] || env_settings[:environment] || DEFAULTS[:environment]
      files = config_paths(flags, environment, cwd)
      # Messages name each file as the user wrote it; it is read relative to +cwd+. A later file's setting
      # beats an earlier one's (binds as a whole); hooks, plugins and reported directives add up.
      dsls = files.map { |path| DSL.evaluate(cwd == Dir.pwd ? path : File.expand_path(path, cwd)) }
      # puma 8's single/cluster blocks run after every file, by the worker count the layers give.
      workers = flags.settings[:workers] || dsls.map(&:settings).reduce({}, :merge)[:workers] || env_settings[:workers] || 0
      mode = workers.zero? ? :single : :cluster
      dsls += dsls.flat_map { |dsl| dsl.mode_blocks[mode].map { |block| DSL.evaluate_block(dsl.__path, block) } }
      missing_plugins = flags.plugins.to_h { |name| [name, PluginLauncher.load(name)] }.compact

      settings = flags.settings.dup
      settings[:rackup] = flags.rackup if flags.rackup
      hooks = HOOKS.to_h { |name| [name, dsls.flat_map { |dsl| dsl.hooks[name] }] }
      new(flags: settings, file: dsls.map(&:settings).reduce({}, :merge), env: env_settings, hooks: hooks,
          config_files: files, cwd: cwd, env_vars: env,
          unsupported: flags.unsupported + missing_plugins.map { |name, why| "flag --plugin #{name}: #{why}; ignored" } +
                       dsls.flat_map(&:unsupported),
          plugins: (dsls.flat_map(&:plugin_names) + flags.plugins - missing_plugins.keys).uniq,
          plugin_options: dsls.map(&:options).reduce({}, :merge),
          sources: env_sources.merge(*dsls.map(&:sources)).merge(flags.sources))
    end

    # The config files to read, in order: the -C paths; none for --no-config, -C - or -C /dev/null; else the
    # first of PUMA_CONFIG_FILES that exists, then DEFAULT_CONFIG_FILE if it exists.
    def self.config_paths(flags, environment, cwd)
      return [] if flags.no_config?

      unless flags.config_paths.empty?
        flags.config_paths.each do |path|
          raise ConfigError, "config file not found: #{path}" unless File.file?(File.expand_path(path, cwd))
        end
        return flags.config_paths
      end
      puma = PUMA_CONFIG_FILES.map { |pattern| format(pattern, env: environment) }
                              .find { |path| File.file?(File.join(cwd, path)) }
      [puma, DEFAULT_CONFIG_FILE].compact.select { |path| File.file?(File.join(cwd, path)) }
    end

    # The settings the environment variables of docs/CONFIG.md set. Empty values count as unset.
    # +sources+, when given, receives "env NAME" for each setting set.
    def self.from_environment(env, sources = {})
      value = ->(name) { env[name].nil? || env[name].strip.empty? ? nil : env[name] }
      settings = {}
      settings[:binds] = [Setting.bind_for_port("PORT", value["PORT"])] if value["PORT"]
      settings[:workers] = Setting.workers("WEB_CONCURRENCY", value["WEB_CONCURRENCY"]) if value["WEB_CONCURRENCY"]
      threads_var = %w[PUMA_MAX_THREADS RAILS_MAX_THREADS].find { |name| value[name] }
      settings[:threads] = Setting.integer(threads_var, value[threads_var], min: 1) if threads_var
      environment_var = %w[RACK_ENV RAILS_ENV].find { |name| value[name] }
      settings[:environment] = value[environment_var] if environment_var
      sources[:binds] = "env PORT" if settings[:binds]
      sources[:workers] = "env WEB_CONCURRENCY" if settings[:workers]
      sources[:threads] = "env #{threads_var}" if threads_var
      sources[:environment] = "env #{environment_var}" if environment_var
      settings
    end

    # The config files read, in order (paths as given).
    attr_reader :config_files
    attr_reader :hooks
    # Puma directives the config files used and puma flags given that have no equivalent here, each
    # reported at boot (DSL::Unsupported with file:line, or "flag --NAME: REASON; ignored").
    attr_reader :unsupported
    # Puma plugins to start in the shepherd (PluginLauncher), and the options their directives recorded.
    attr_reader :plugins, :plugin_options

    # +flags+, +file+, +env+: settings each layer set (keys of DEFAULTS). +hooks+: { before_fork: [...],
    # on_worker_boot: [...], ... } from the file. +sources+: where each non-default setting came from.
    def initialize(flags: {}, file: {}, env: {}, hooks: nil, config_files: [], cwd: Dir.pwd, env_vars: ENV,
                   unsupported: [], sources: {}, plugins: [], plugin_options: {})
      @values = DEFAULTS.merge(env).merge(file).merge(flags)
      min, max = @values.values_at(:min_threads, :threads)
      raise ConfigError, "threads: min #{min} is greater than max #{max}" if min > max

      @values[:rackup] = File.expand_path(@values[:rackup], cwd)
      PATHS.each { |key| @values[key] = File.expand_path(@values[key], cwd) if @values[key] }
      @hooks = HOOKS.to_h { |name| [name, []] }.merge(hooks || {})
      @config_files = config_files
      @plugins = plugins
      @plugin_options = plugin_options
      if autoscale && autoscale_min > autoscale_max
        raise ConfigError, "autoscale: min #{autoscale_min} is greater than max #{autoscale_max}"
      end
      @values[:binds] = resolve_tls(absolute_socket_files(@values[:binds], cwd), cwd, env_vars)
      @unsupported = unsupported
      @sources = sources
      check_open_control_app!
      if fibers && ractors
        raise ConfigError, "#{source(:fibers)}: fibers: cannot be combined with `ractors` (#{source(:ractors)}): " \
                           "a worker's slots are either fibers on one thread or Ractors"
      end
      if autoscale_bridge == "ractor" && !ractors
        raise ConfigError, "#{source(:autoscale_bridge)}: autoscale bridge: :ractor needs `ractors` " \
                           "(the directive, or --ractors): a Ractor slot serves only where every slot is a Ractor"
      end
    end

    # Where the value of +key+ came from: "default", "env NAME", "FILE:LINE" or "flag --NAME".
    def source(key)
      @sources.fetch(key, "default")
    end

    # [[key, value, source], ...] for every setting, in DEFAULTS order (what --dry-run prints).
    def explain
      DEFAULTS.keys.map { |key| [key, @values[key], source(key)] }
    end

    DEFAULTS.each_key do |key|
      define_method(key) { @values[key] }
    end

    alias preload_app? preload_app
    alias log_requests? log_requests
    alias server_timing? server_timing
    alias quiet? quiet
    alias autoscale? autoscale
    alias ractors? ractors

    # The predicted wait above which an arriving request is answered 503 at once, in seconds; nil when
    # shedding is off (`shed_wait_limit false`).
    def resolved_shed_wait_limit
      return nil if shed_wait_limit == false

      shed_wait_limit || client_timeout * SHED_SHARE_OF_CLIENT_TIMEOUT
    end

    # The slots each worker process dials in (docs/CONFIG.md, "fibers"): `fibers` when set (all of them
    # fibers on one thread), else `threads`. The CONFIG frame's "threads" is this number: the host counts
    # slots, not how a worker runs them.
    def slots_per_worker
      fibers || threads
    end

    # What each slot of a worker is, as the CONFIG frame's "slot_kind" tells the host: "fiber" (`fibers`),
    # "ractor" (`ractors`) or "thread". The host holds fiber slots to the concurrency limit.
    def slot_kind
      if fibers then "fiber"
      elsif ractors then "ractor"
      else "thread"
      end
    end

    # Worker processes actually forked: at least one, since the app never runs in the shepherd.
    def worker_processes
      [workers, 1].max
    end

    # The callables registered for +hook+ (a HOOKS name), in order: the config files', then plugins'.
    def hooks_for(hook)
      @hooks.fetch(hook)
    end

    # A plugin's registration (launcher.events.after_booted { }) of +callable+ for +hook+.
    def add_hook(hook, callable)
      @hooks.fetch(hook) << callable
    end

    def before_fork_hooks
      @hooks[:before_fork]
    end

    def on_worker_boot_hooks
      @hooks[:on_worker_boot]
    end

    def on_worker_shutdown_hooks
      @hooks[:on_worker_shutdown]
    end

    def on_worker_fork_hooks
      @hooks[:on_worker_fork]
    end

    def after_worker_fork_hooks
      @hooks[:after_worker_fork]
    end

    # The configured lowlevel_error_handler (responds to call(error, env[, status])), or nil.
    def lowlevel_error_handler
      @hooks[:lowlevel_error_handler].last
    end

    # Raises ConfigError unless the rackup file exists (checked after resolution, so a flag or the file
    # can name it).
    def check_rackup!
      raise ConfigError, "rackup file not found: #{rackup}" unless File.file?(rackup)

      self
    end

    # The CONFIG frame's JSON object as a Hash (docs/CONFIG.md, "The CONFIG frame").
    def to_h
      {
        "binds" => binds,
        "bind_to_activated_sockets" => bind_to_activated_sockets,
        "workers" => worker_processes,
        "threads" => slots_per_worker,
        "slot_kind" => slot_kind,
        "rackup" => rackup,
        "environment" => environment,
        "preload_app" => preload_app,
        "control_url" => control_url,
        "control_token" => control_token || nil,
        "control_no_token" => control_token == false,
        "persistent_timeout" => persistent_timeout,
        "first_data_timeout" => first_data_timeout,
        "write_timeout" => write_timeout,
        "header_timeout" => header_timeout,
        "max_connections" => max_connections,
        "max_pipelined_requests" => max_pipelined_requests,
        "http_content_length_limit" => http_content_length_limit,
        "worker_boot_timeout" => worker_boot_timeout,
        "shutdown_timeout" => shutdown_timeout,
        "log_requests" => log_requests && !quiet,
        "server_timing" => server_timing,
        "worker_timeout" => worker_timeout,
        "worker_shutdown_timeout" => worker_shutdown_timeout,
        "pidfile" => pidfile,
        "state_path" => state_path,
        "stdout_path" => stdout_path,
        "stderr_path" => stderr_path,
        "redirect_append" => redirect_append,
        "tag" => tag,
        "quiet" => quiet,
        "log_format" => log_format,
        "autoscale" => autoscale,
        "autoscale_min" => autoscale_min,
        "autoscale_max" => autoscale_max,
        "autoscale_target_queue_p95_ms" => (autoscale_target_queue_p95 * 1000).round(3),
        "autoscale_actuator" => autoscale_actuator,
        "autoscale_bridge" => autoscale && autoscale_bridge || nil,
        "ractors" => ractors,
        "decision_log" => decision_log,
        "client_timeout" => client_timeout,
        "shed_wait_limit_ms" => resolved_shed_wait_limit && (resolved_shed_wait_limit * 1000).round(3),
        "health_check_path" => health_check_path || nil,
        "health_check_answer" => health_check_answer,
        "metrics_url" => metrics_url,
        "controller_jar_dir" => controller_jar_dir,
        "websocket_max_message" => websocket_max_message,
        "websocket_outbound_limit" => websocket_outbound_limit,
        "websocket_ping_interval" => websocket_ping_interval,
        "websocket_max_connections" => websocket_max_connections,
        "webtransport_sessions_per_connection" => webtransport_sessions_per_connection,
        "webtransport_max_sessions" => webtransport_max_sessions,
        "webtransport_streams_per_session" => webtransport_streams_per_session,
        "webtransport_max_message" => webtransport_max_message,
        "webtransport_outbound_limit" => webtransport_outbound_limit,
        "bundles" => BUNDLE_START_ORDER.select { |name, _| bundles.include?(name) }.values +
                     (autoscale ? AUTOSCALE_BUNDLES.fetch(autoscale_actuator) : []) +
                     (autoscale && autoscale_bridge ? [BRIDGE_BUNDLES.fetch(autoscale_bridge)] : []) +
                     (fibers && !autoscale ? [LIMIT_BUNDLE] : [])
      }
    end

    def to_json(*args)
      to_h.to_json(*args)
    end

    private

    # A control app without a token (`no_token: true`, `--control-token none`) answers anyone who can
    # connect, so it may listen only where no one else can: a loopback address (docs/SECURITY.md, "The
    # control app"). Raises ConfigError naming where the no_token came from.
    def check_open_control_app!
      return unless control_url && control_token == false

      host = Setting::BIND.match(control_url)[:host].delete("[]")
      return if Setting.loopback_host?(host)

      url_source = source(:control_url) == source(:control_token) ? "" : " (#{source(:control_url)})"
      raise ConfigError, "#{source(:control_token)}: activate_control_app no_token: true is allowed only on a " \
                         "loopback address (127.0.0.0/8, ::1, localhost), but the control app listens on " \
                         "#{control_url}#{url_source}: give it a token (auth_token:, or drop no_token to have one " \
                         "generated at boot) or bind it to 127.0.0.1"
    end

    # A unix:// bind's relative socket file is the start directory's (puma's unix://tmp/app.sock): the
    # host is told the absolute path.
    def absolute_socket_files(binds, cwd)
      binds.map do |bind|
        match = Setting::UNIX_BIND.match(bind)
        next bind unless match

        "unix://#{File.expand_path(match[:path].gsub('%20', ' '), cwd)}#{match[:query] ? "?#{match[:query]}" : ''}"
      end
    end

    # Every ssl:// bind gets absolute cert= and key= paths: its own, else --tls-cert/--tls-key, else (in
    # development only) the self-signed localhost certificate of DevCertificate. Raises ConfigError.
    def resolve_tls(binds, cwd, env_vars)
      tls_binds = binds.select { |b| b.start_with?("ssl://") }
      if tls_binds.empty? && (tls_cert || tls_key)
        raise ConfigError, "--tls-cert/--tls-key given, but no ssl:// bind to use them (add -b ssl://0.0.0.0:9443)"
      end
      raise ConfigError, "--tls-cert and --tls-key go together" if tls_cert.nil? != tls_key.nil?

      binds.map do |bind|
        next bind unless bind.start_with?("ssl://")

        params = Setting.ssl_params("bind", bind)
        cert, key = params.values_at("cert", "key")
        cert, key = tls_cert, tls_key if cert.nil? && key.nil?
        if cert.nil? && key.nil?
          unless environment == "development"
            raise ConfigError, "#{bind}: no certificate (give cert= and key=, or --tls-cert and --tls-key); " \
                               "a self-signed one is made only in development"
          end
          cert, key = DevCertificate.ensure(env: env_vars, log: ->(line) { Log.line(line) })
        end
        raise ConfigError, "#{bind}: cert= and key= go together" if cert.nil? || key.nil?

        cert, key = [cert, key].map { |path| File.expand_path(path, cwd) }
        [cert, key].each { |path| raise ConfigError, "#{bind}: no such file #{path}" unless File.file?(path) }
        host_port = bind[%r{\Assl://[^?]+}]
        verify = params["verify_mode"] ? "&verify_mode=#{params['verify_mode']}" : ""
        "#{host_port}?#{URI.encode_www_form('cert' => cert, 'key' => key)}#{verify}"
      end.freeze
    end
  end
end
