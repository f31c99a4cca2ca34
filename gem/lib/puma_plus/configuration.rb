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

module PumaPlus
  class Configuration
    DEFAULT_CONFIG_FILE = "config/puma-plus.rb"
    DEFAULTS = {
      binds: ["tcp://0.0.0.0:9292"].freeze,
      workers: 0,
      min_threads: 0,
      threads: 5,
      rackup: "config.ru",
      environment: "development",
      preload_app: false,
      control_url: nil,
      control_token: nil,
      persistent_timeout: 20,
      first_data_timeout: 30,
      write_timeout: 10,
      http_content_length_limit: nil,
      worker_boot_timeout: 60,
      shutdown_timeout: 30,
      log_requests: false,
      server_timing: false,
      worker_timeout: 60,
      worker_shutdown_timeout: 30,
      pidfile: nil,
      state_path: nil,
      stdout_path: nil,
      stderr_path: nil,
      redirect_append: false,
      tag: nil,
      quiet: false,
      log_format: "text"
    }.freeze
    # Settings that are paths, made absolute against the working directory at resolution.
    PATHS = %i[pidfile state_path stdout_path stderr_path].freeze
    HOOKS = %i[before_fork on_worker_boot on_worker_shutdown on_worker_fork after_worker_fork lowlevel_error_handler].freeze
    # Protocol bundles the host starts; only HTTP/1.1 for now.
    BUNDLES = ["protocol-h1"].freeze

    # Resolves the configuration from +argv+ (the user's flags), the environment +env+ and the config
    # file (-C, or config/puma-plus.rb under +cwd+ if it exists). Raises ConfigError.
    def self.resolve(argv, env: ENV, cwd: Dir.pwd)
      flags = CommandLine.new(argv)
      file_path = flags.config_path
      if file_path
        raise ConfigError, "config file not found: #{file_path}" unless File.file?(File.expand_path(file_path, cwd))
      elsif File.file?(File.join(cwd, DEFAULT_CONFIG_FILE))
        file_path = DEFAULT_CONFIG_FILE
      end
      # Messages name the file as the user wrote it; it is read relative to +cwd+.
      dsl = DSL.evaluate(cwd == Dir.pwd ? file_path : File.expand_path(file_path, cwd)) if file_path

      settings = flags.settings.dup
      settings[:rackup] = flags.rackup if flags.rackup
      env_sources = {}
      new(flags: settings, file: dsl&.settings || {}, env: from_environment(env, env_sources), hooks: dsl&.hooks,
          config_file: file_path, cwd: cwd, unsupported: dsl&.unsupported || [],
          sources: env_sources.merge(dsl&.sources || {}).merge(flags.sources))
    end

    # The settings the environment variables of docs/CONFIG.md set. Empty values count as unset.
    # +sources+, when given, receives "env NAME" for each setting set.
    def self.from_environment(env, sources = {})
      value = ->(name) { env[name].nil? || env[name].strip.empty? ? nil : env[name] }
      settings = {}
      settings[:binds] = [Setting.bind_for_port("PORT", value["PORT"])] if value["PORT"]
      settings[:workers] = Setting.integer("WEB_CONCURRENCY", value["WEB_CONCURRENCY"]) if value["WEB_CONCURRENCY"]
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

    attr_reader :config_file, :hooks
    # Puma directives the config file used that have no equivalent here (DSL::Unsupported, with file:line).
    attr_reader :unsupported

    # +flags+, +file+, +env+: settings each layer set (keys of DEFAULTS). +hooks+: { before_fork: [...],
    # on_worker_boot: [...], ... } from the file. +sources+: where each non-default setting came from.
    def initialize(flags: {}, file: {}, env: {}, hooks: nil, config_file: nil, cwd: Dir.pwd, unsupported: [],
                   sources: {})
      @values = DEFAULTS.merge(env).merge(file).merge(flags)
      min, max = @values.values_at(:min_threads, :threads)
      raise ConfigError, "threads: min #{min} is greater than max #{max}" if min > max

      @values[:rackup] = File.expand_path(@values[:rackup], cwd)
      PATHS.each { |key| @values[key] = File.expand_path(@values[key], cwd) if @values[key] }
      @hooks = HOOKS.to_h { |name| [name, []] }.merge(hooks || {})
      @config_file = config_file
      @unsupported = unsupported
      @sources = sources
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

    # Worker processes actually forked: at least one, since the app never runs in the shepherd.
    def worker_processes
      [workers, 1].max
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
        "workers" => worker_processes,
        "threads" => threads,
        "rackup" => rackup,
        "environment" => environment,
        "preload_app" => preload_app,
        "control_url" => control_url,
        "control_token" => control_token,
        "persistent_timeout" => persistent_timeout,
        "first_data_timeout" => first_data_timeout,
        "write_timeout" => write_timeout,
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
        "bundles" => BUNDLES
      }
    end

    def to_json(*args)
      to_h.to_json(*args)
    end
  end
end
