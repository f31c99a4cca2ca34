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

          -b, --bind URI               listen on tcp://HOST:PORT, ssl://HOST:PORT[?cert=PATH&key=PATH] or unix://PATH;
                                       repeatable (default tcp://0.0.0.0:9292)
              --bind-to-activated-sockets [only]
                                       systemd's sockets (LISTEN_FDS) become binds too (only: the only ones)
          -p, --port PORT              shorthand for --bind tcp://0.0.0.0:PORT
          -w, --workers N              forked worker processes (default 0: one worker, puma's single mode)
          -t, --threads MIN:MAX        threads per worker, each one slot; MAX is used (default 0:5)
          --fibers N               N fiber slots per worker on one thread, instead of threads (docs/CONFIG.md)
          -C, --config PATH            config file, repeatable; -C /dev/null or -C - for none (default:
                                       config/puma/ENV.rb or config/puma.rb, then config/puma-plus.rb)
              --no-config              read no config file
              --dir DIR                change to DIR before starting
          -I, --include PATH           put PATH first on Ruby's $LOAD_PATH (repeatable)
              --plugin NAME            load puma plugin NAME, as the plugin directive (repeatable)
          -e, --environment ENV        RACK_ENV (default development)
              --preload                load the app in the shepherd before forking
              --ractors                every slot is a Ractor, not a thread (experimental; docs/RACK.md)
          -f, --fork-worker[=N]        workers fork from a mold, worker 0 promoted after N requests
                                       (default 1000; 0: only on refork; docs/CONFIG.md)
              --control-url URI        control app listener, tcp://HOST:PORT (port 0 allowed)
              --control-token TOKEN    token the control app requires (?token=; default: generated at
                                       boot and printed; `none`: no token, loopback URL only)
              --metrics-url URI        read-only /metrics listener, tcp://HOST:PORT, no token
          -v, --log-requests           log one line per request with its timing points
              --tls-cert PATH          PEM certificate chain for ssl:// binds that name none
              --tls-key PATH           PEM private key (RSA or EC) for ssl:// binds that name none
              --bundles NAMES          protocol bundles to load, comma-separated: h1,h2,h3 (default h1,h2)
          -q, --quiet                  no request log lines (beats --log-requests and log_requests)
              --log-format FORMAT      text (default) or json: one JSON object per log line
              --pidfile PATH           write the host's pid (the process to signal) to PATH
          -S, --state PATH             write pid, control URL and token to PATH (YAML, for ctl -S)
              --tag NAME               shown in process titles
              --redirect-stdout PATH   stdout of host, shepherd and workers goes to PATH
              --redirect-stderr PATH   stderr of host, shepherd and workers goes to PATH
              --[no-]redirect-append   append to the redirect files instead of truncating them
              --dry-run                print each resolved setting and where it came from, then exit
          -h, --help                   show this help
          -V, --version                show the version

      Puma's other flags (--idle-timeout, --debug,
      --prune-bundler, --extra-runtime-dependencies, -R/--restart-cmd, -s/--silent, --early-hints) are
      accepted, reported at boot with the reason, and ignored (docs/CONFIG.md, "Puma names").

      puma-plus ctl [-C PATH | -S PATH | --control-url URI [--control-token TOKEN]] COMMAND
          COMMAND: stats, status, restart, phased-restart, refork, reload-config, stop, halt, controller [JAR]

      Environment: PORT, WEB_CONCURRENCY, PUMA_MAX_THREADS / RAILS_MAX_THREADS, RACK_ENV / RAILS_ENV,
      JAVA_HOME (the JDK to run, 21 or newer).
    TEXT

    # True when --dry-run was given (the executable prints the resolution and exits).
    def dry_run?
      @dry_run == true
    end

    # Settings the flags set (keys as in Configuration::DEFAULTS), e.g. { workers: 2, binds: [...] }.
    attr_reader :settings
    # The -C paths as given ([] when none; --no-config, -C - and -C /dev/null mean no file: see #no_config?).
    attr_reader :config_paths
    # -I paths, in order.
    attr_reader :load_paths
    # --plugin names, in order.
    attr_reader :plugins
    # --dir, or nil.
    attr_reader :directory
    # Puma flags with no equivalent here: ["flag --fork-worker: REASON; ignored", ...].
    attr_reader :unsupported

    # Puma's flags with no equivalent in puma-plus, each with whether it takes a value and the reason.
    UNSUPPORTED = {
      ["--idle-timeout SECONDS"] => "the host has no idle shutdown (only it sees requests, and it offers no such stop yet)",
      ["--debug"] => "no low-level debugging output",
      ["--prune-bundler"] => "the shepherd is not re-exec'd",
      ["--extra-runtime-dependencies GEMS"] => "there is no prune_bundler",
      ["-R", "--restart-cmd CMD"] => "a hot restart spawns a new shepherd; there is no exec",
      ["-s", "--silent"] => "the boot lines are the log; use --redirect-stdout",
      ["--early-hints"] => "103 Early Hints are always passed through when the app sends them"
    }.freeze

    # True when --no-config, -C - or -C /dev/null asked for no config file.
    def no_config?
      @no_config == true
    end
    # The positional rackup path as given, or nil.
    attr_reader :rackup
    # The flag that set each setting: { workers: "flag --workers", ... }.
    attr_reader :sources

    # Parses +argv+ (not modified). Raises ConfigError for an unknown flag or a bad value.
    def initialize(argv)
      @settings = {}
      @sources = {}
      @config_paths = []
      @load_paths = []
      @plugins = []
      @directory = nil
      @unsupported = []
      @rackup = nil
      @positional_after_flag = nil
      binds = []
      rest = parser(binds).parse(argv.dup)
      rest.unshift(@positional_after_flag) if @positional_after_flag
      raise ConfigError, "more than one rackup file given: #{rest.join(' ')}" if rest.size > 1

      @rackup = rest.first
      @settings[:binds] = binds unless binds.empty?
      @sources[:rackup] = "argument #{@rackup}" if @rackup
    rescue OptionParser::ParseError => e
      raise ConfigError, e.message
    end

    private

    # Records "flag --name" as the source of every setting the block changed.
    def tracked(flag)
      before = @settings.dup
      yield
      @settings.each { |key, value| @sources[key] = "flag #{flag}" if !before.key?(key) || before[key] != value }
    end

    # An OptionParser whose handlers record their long flag as the source of what they set (--dry-run).
    class TrackingParser < OptionParser
      def initialize(command_line)
        @command_line = command_line
        super()
      end

      def on(*spec, &handler)
        flag = spec.find { |s| s.is_a?(String) && s.start_with?("--") }.split(" ").first
        super(*spec) { |value| @command_line.send(:tracked, flag) { handler.call(value) } }
      end
    end
    private_constant :TrackingParser

    def parser(binds)
      TrackingParser.new(self).tap do |o|
        o.on("-b", "--bind URI") { |v| binds << Setting.listen_bind("--bind", v); @sources[:binds] = "flag --bind/--port" }
        # OptionParser hands the next argument to an optional value; one that is not "only" is the rackup
        # file that followed the flag (puma takes it as the value, and then true).
        o.on("--bind-to-activated-sockets [only]") do |v|
          @settings[:bind_to_activated_sockets] = v == "only" ? "only" : true
          @positional_after_flag = v unless v.nil? || v == "only"
        end
        o.on("-p", "--port PORT") { |v| binds << Setting.bind_for_port("--port", v); @sources[:binds] = "flag --bind/--port" }
        o.on("-w", "--workers N") { |v| @settings[:workers] = Setting.integer("--workers", v) }
        o.on("-t", "--threads MIN:MAX") do |v|
          min, max = v.split(":", 2)
          min, max = "0", min if max.nil? # "-t 8" means up to 8 threads
          @settings[:min_threads], @settings[:threads] = Setting.threads("--threads", min, max)
        end
        o.on("--fibers N") { |v| @settings[:fibers] = Setting.positive_integer("--fibers", v) }
        o.on("-C", "--config PATH") do |v|
          if ["-", File::NULL].include?(v) then @no_config = true
          else @config_paths << v
          end
        end
        o.on("--no-config") { @no_config = true }
        o.on("--dir DIR") { |v| @directory = Setting.string("--dir", v) }
        o.on("-I", "--include PATH") { |v| @load_paths.concat(v.split(File::PATH_SEPARATOR)) }
        o.on("--plugin NAME") { |v| @plugins << Setting.string("--plugin", v) }
        o.on("-e", "--environment ENV") { |v| @settings[:environment] = Setting.string("--environment", v) }
        o.on("--preload") { @settings[:preload_app] = true }
        o.on("--ractors") { @settings[:ractors] = true }
        # puma's spec: an optional number (a rackup path after -f is not taken for it).
        o.on("-f", "--fork-worker=[REQUESTS]", OptionParser::DecimalInteger) do |v|
          @settings[:fork_worker] = v.nil? ? 1000 : Setting.non_negative_integer("--fork-worker", v)
        end
        o.on("--control-url URI") { |v| @settings[:control_url] = Setting.bind("--control-url", v) }
        # puma's spelling of no_token: `--control-token none` (loopback only, as no_token).
        o.on("--control-token TOKEN") do |v|
          @settings[:control_token] = v == "none" ? false : Setting.string("--control-token", v)
        end
        o.on("--metrics-url URI") { |v| @settings[:metrics_url] = Setting.bind("--metrics-url", v) }
        o.on("-v", "--log-requests") { @settings[:log_requests] = true }
        o.on("--tls-cert PATH") { |v| @settings[:tls_cert] = Setting.string("--tls-cert", v) }
        o.on("--tls-key PATH") { |v| @settings[:tls_key] = Setting.string("--tls-key", v) }
        o.on("--bundles NAMES") { |v| @settings[:bundles] = Setting.bundles("--bundles", v.split(",").map(&:strip)) }
        o.on("-q", "--quiet") { @settings[:quiet] = true }
        o.on("--log-format FORMAT") { |v| @settings[:log_format] = Setting.log_format("--log-format", v) }
        o.on("--pidfile PATH") { |v| @settings[:pidfile] = Setting.string("--pidfile", v) }
        o.on("-S", "--state PATH") { |v| @settings[:state_path] = Setting.string("--state", v) }
        o.on("--tag NAME") { |v| @settings[:tag] = Setting.string("--tag", v) }
        o.on("--redirect-stdout PATH") { |v| @settings[:stdout_path] = Setting.string("--redirect-stdout", v) }
        o.on("--redirect-stderr PATH") { |v| @settings[:stderr_path] = Setting.string("--redirect-stderr", v) }
        o.on("--[no-]redirect-append") { |v| @settings[:redirect_append] = v }
        UNSUPPORTED.each do |spec, reason|
          flag = spec.grep(/\A--/).first[/\A--[a-z-]+/]
          o.on(*spec) { @unsupported << "flag #{flag}: #{reason}; ignored" }
        end
        o.on("--dry-run") { @dry_run = true }
        # Handled by the puma-plus executable; refuse them here rather than let OptionParser print and exit.
        o.on("-h", "--help") { raise ConfigError, "--help is handled by the puma-plus executable" }
        o.on("-V", "--version") { raise ConfigError, "--version is handled by the puma-plus executable" }
      end
    end
  end
end
