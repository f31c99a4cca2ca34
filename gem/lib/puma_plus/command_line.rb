# frozen_string_literal: true

# The puma-plus command line (docs/CONFIG.md, "Command line"): the flags the user typed, which the Java
# host passes through unchanged to the shepherd. Parsing yields only the settings the flags set; they
# beat the config file, the environment and the defaults (PumaPlus::Configuration). The puma-plus
# executable uses USAGE for --help.

require "optparse"
require_relative "setting"
require_relative "version"

module PumaPlus
  class CommandLine
    USAGE = <<~TEXT
      Usage: puma-plus [options] [rackup file]      (rackup file defaults to ./config.ru)

          -b, --bind URI               listen on tcp://HOST:PORT or ssl://HOST:PORT[?cert=PATH&key=PATH];
                                       repeatable (default tcp://0.0.0.0:9292)
          -p, --port PORT              shorthand for --bind tcp://0.0.0.0:PORT
          -w, --workers N              forked worker processes (default 0: one worker, puma's single mode)
          -t, --threads MIN:MAX        threads per worker, each one slot; MAX is used (default 0:5)
          -C, --config PATH            config file (default config/puma-plus.rb if it exists)
          -e, --environment ENV        RACK_ENV (default development)
              --preload                load the app in the shepherd before forking
              --control-url URI        control app listener, tcp://HOST:PORT (port 0 allowed)
              --control-token TOKEN    token the control app requires (?token=)
              --log-requests           log one line per request with its timing points
              --tls-cert PATH          PEM certificate chain for ssl:// binds that name none
              --tls-key PATH           PEM private key (RSA or EC) for ssl:// binds that name none
              --bundles NAMES          protocol bundles to load, comma-separated: h1,h2,h3 (default h1,h2)
          -h, --help                   show this help
          -v, --version                show the version

      Environment: PORT, WEB_CONCURRENCY, PUMA_MAX_THREADS / RAILS_MAX_THREADS, RACK_ENV / RAILS_ENV,
      JAVA_HOME (the JDK to run, 21 or newer).
    TEXT

    # Settings the flags set (keys as in Configuration::DEFAULTS), e.g. { workers: 2, binds: [...] }.
    attr_reader :settings
    # The -C path as given, or nil.
    attr_reader :config_path
    # The positional rackup path as given, or nil.
    attr_reader :rackup

    # Parses +argv+ (not modified). Raises ConfigError for an unknown flag or a bad value.
    def initialize(argv)
      @settings = {}
      @config_path = nil
      @rackup = nil
      binds = []
      rest = parser(binds).parse(argv.dup)
      raise ConfigError, "more than one rackup file given: #{rest.join(' ')}" if rest.size > 1

      @rackup = rest.first
      @settings[:binds] = binds unless binds.empty?
    rescue OptionParser::ParseError => e
      raise ConfigError, e.message
    end

    private

    def parser(binds)
      OptionParser.new do |o|
        o.on("-b", "--bind URI") { |v| binds << Setting.listen_bind("--bind", v) }
        o.on("-p", "--port PORT") { |v| binds << Setting.bind_for_port("--port", v) }
        o.on("-w", "--workers N") { |v| @settings[:workers] = Setting.integer("--workers", v) }
        o.on("-t", "--threads MIN:MAX") do |v|
          min, max = v.split(":", 2)
          min, max = "0", min if max.nil? # "-t 8" means up to 8 threads
          @settings[:min_threads], @settings[:threads] = Setting.threads("--threads", min, max)
        end
        o.on("-C", "--config PATH") { |v| @config_path = v }
        o.on("-e", "--environment ENV") { |v| @settings[:environment] = Setting.string("--environment", v) }
        o.on("--preload") { @settings[:preload_app] = true }
        o.on("--control-url URI") { |v| @settings[:control_url] = Setting.bind("--control-url", v) }
        o.on("--control-token TOKEN") { |v| @settings[:control_token] = Setting.string("--control-token", v) }
        o.on("--log-requests") { @settings[:log_requests] = true }
        o.on("--tls-cert PATH") { |v| @settings[:tls_cert] = Setting.string("--tls-cert", v) }
        o.on("--tls-key PATH") { |v| @settings[:tls_key] = Setting.string("--tls-key", v) }
        o.on("--bundles NAMES") { |v| @settings[:bundles] = Setting.bundles("--bundles", v.split(",").map(&:strip)) }
        # Handled by the puma-plus executable; refuse them here rather than let OptionParser print and exit.
        o.on("-h", "--help") { raise ConfigError, "--help is handled by the puma-plus executable" }
        o.on("-v", "--version") { raise ConfigError, "--version is handled by the puma-plus executable" }
      end
    end
  end
end
