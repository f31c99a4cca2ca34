# frozen_string_literal: true

# The config file language (config/puma-plus.rb, docs/CONFIG.md "Config file directives"), evaluated once
# by the shepherd before anything is forked. Each directive below records one setting; the result beats
# the environment and the defaults and is beaten by flags (PumaPlus::Configuration). A typo or bad value
# is reported as "<file>:<line>: <directive>: <problem>".
#
#   bind "tcp://127.0.0.1:3000"       # URI, repeatable          (default tcp://0.0.0.0:9292)
#   bind "ssl://0.0.0.0:9443?cert=cert.pem&key=key.pem"  # TLS (h2 and http/1.1 by ALPN; h3 if loaded)
#   ssl_bind "0.0.0.0", 9443, { cert: "cert.pem", key: "key.pem" }  # puma's form of the same
#   port 3000, "127.0.0.1"            # integer, optional host   (env PORT)
#   workers 2                         # integer                  (default 0; env WEB_CONCURRENCY)
#   threads 5, 5                      # min, max; max is used    (default 0, 5; env PUMA_MAX_THREADS,
#                                     #                           RAILS_MAX_THREADS)
#   environment "production"          # string                   (default development; env RACK_ENV, RAILS_ENV)
#   rackup "app.ru"                   # path                     (default config.ru)
#   preload_app!                      # load the app in the shepherd before forking (default off)
#   before_fork { DB.disconnect }     # block, run in the shepherd before forking the workers
#   on_worker_boot { |index| DB.connect }  # block, run in each worker after fork
#   activate_control_app "tcp://127.0.0.1:9293", auth_token: "s3cret"
#   persistent_timeout 75             # seconds a keep-alive connection may idle (default 20)
#   first_data_timeout 10             # seconds to wait for a request's first bytes (default 30)
#   write_timeout 30                  # seconds a response write may make no progress (default 10)
#   http_content_length_limit 10_000_000   # bytes; larger bodies get 413 (default none)
#   worker_boot_timeout 120           # seconds a worker may take to dial in (default 60)
#   shutdown_timeout 10               # seconds a graceful stop waits (default 30)
#   log_requests                      # the host logs one line per request with its timing points
#                                     #                          (default false; alone means true, as in puma)
#   server_timing                     # the host adds Server-Timing: queue;dur=…, app;dur=… to responses
#                                     #                          (default false; alone means true)
#   bundles "h1", "h2", "h3"          # protocol bundles to load (default h1, h2; h3 loads Kwik)

require_relative "setting"
require_relative "config_error"

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

    attr_reader :settings, :hooks

    def initialize(path)
      @path = path
      @settings = {}
      @hooks = { before_fork: [], on_worker_boot: [] }
    end

    def __evaluate(source)
      instance_eval(source, @path, 1)
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

    def bind(uri)
      directive(:bind) { (@settings[:binds] ||= []) << Setting.listen_bind("bind", uri) }
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

    def workers(count)
      directive(:workers) { @settings[:workers] = Setting.integer("workers", count) }
    end

    def threads(min, max = nil)
      min, max = 0, min if max.nil?
      directive(:threads) { @settings[:min_threads], @settings[:threads] = Setting.threads("threads", min, max) }
    end

    def environment(name)
      directive(:environment) { @settings[:environment] = Setting.string("environment", name) }
    end

    def rackup(path)
      directive(:rackup) { @settings[:rackup] = Setting.string("rackup", path) }
    end

    def preload_app!(answer = true)
      directive(:preload_app!) { @settings[:preload_app] = Setting.boolean("preload_app!", answer) }
    end

    # Puma's directive: `log_requests` alone means true.
    def log_requests(answer = true)
      directive(:log_requests) { @settings[:log_requests] = Setting.boolean("log_requests", answer) }
    end

    # puma-plus's own: `server_timing` alone means true.
    def server_timing(answer = true)
      directive(:server_timing) { @settings[:server_timing] = Setting.boolean("server_timing", answer) }
    end

    def before_fork(&block)
      directive(:before_fork) { @hooks[:before_fork] << hook("before_fork", block) }
    end

    def on_worker_boot(&block)
      directive(:on_worker_boot) { @hooks[:on_worker_boot] << hook("on_worker_boot", block) }
    end

    def activate_control_app(url, auth_token: nil)
      directive(:activate_control_app) do
        @settings[:control_url] = Setting.bind("activate_control_app", url)
        @settings[:control_token] = Setting.string("activate_control_app auth_token", auth_token) unless auth_token.nil?
      end
    end

    %i[persistent_timeout first_data_timeout write_timeout worker_boot_timeout shutdown_timeout].each do |name|
      define_method(name) do |seconds|
        directive(name) { @settings[name] = Setting.seconds(name.to_s, seconds) }
      end
    end

    def http_content_length_limit(bytes)
      directive(:http_content_length_limit) do
        @settings[:http_content_length_limit] = bytes.nil? ? nil : Setting.integer("http_content_length_limit", bytes, min: 1)
      end
    end

    # Any other name in the config file is a mistake (a typo or a puma directive we do not have).
    def method_missing(name, *_args, &_block)
      raise ConfigError, "#{@path}:#{caller_line}: unknown directive #{name.to_s.inspect}"
    end

    def respond_to_missing?(_name, _include_private = false)
      false
    end

    private

    # Runs a directive's body, prefixing any ConfigError with file:line. Directive errors already name
    # the directive; ArgumentError (wrong arity) is reported the same way.
    def directive(name)
      yield
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
