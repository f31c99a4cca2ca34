# frozen_string_literal: true

# Puma's plugin API on puma-plus (docs/CONFIG.md, "Plugins"): `plugin :name` loads puma/plugin/NAME (puma's
# own, a gem's, or the app's) against the puma names under puma_api/, and the shepherd starts each plugin
# at boot with this object as its `launcher`. It runs in the shepherd, where puma runs plugins in its
# master: `events` registers the plugin's blocks as the shepherd's lifecycle hooks, `restart` asks the host
# for a hot restart (USR2, docs/ARCHITECTURE.md "Lifecycle"), `stop` for a graceful stop.

require_relative "config_error"
require_relative "log"

module PumaPlus
  class PluginLauncher
    # The directory that holds puma's plugin API (puma/plugin.rb); first on the load path once a plugin is
    # named, so that `require "puma/plugin"` in a plugin finds it even where the puma gem is installed.
    API_DIR = File.expand_path("puma_api", __dir__)

    # Requires puma/plugin/NAME (a plugin registers itself with Puma::Plugin.create). Returns nil, or why the
    # plugin is not there when no puma/plugin/NAME is on the load path (an app that swapped the puma gem
    # for puma-plus keeps Rails' `plugin :tmp_restart`: reported, not fatal). Raises ConfigError when the
    # plugin is there but fails to load.
    def self.load(name)
      $LOAD_PATH.unshift(API_DIR) unless $LOAD_PATH.include?(API_DIR)
      require "puma/plugin"
      require "puma/plugin/#{name}"
      nil
    rescue LoadError => e
      return "no puma/plugin/#{name}.rb on the load path (is the gem that ships it installed?)" if e.path == "puma/plugin/#{name}"

      raise ConfigError, "plugin #{name}: #{e.message}"
    end

    # The launcher's `events`: puma's hook registrations (both its 5/6 and its 7/8 names), each adding the
    # block to the shepherd hook of the same meaning; and puma 5's log methods.
    class Events
      NAMES = { on_booted: :after_booted, after_booted: :after_booted, on_stopped: :after_stopped,
                after_stopped: :after_stopped, on_restart: :before_restart, before_restart: :before_restart }.freeze

      def initialize(config, log_writer)
        @config = config
        @log_writer = log_writer
      end

      NAMES.each do |name, hook|
        define_method(name) { |&block| @config.add_hook(hook, block) }
      end

      def log(message) = @log_writer.log(message)
      def error(message) = @log_writer.error(message)
    end

    # The launcher's `log_writer`: lines go to the shepherd's log.
    class LogWriter
      def initialize(io)
        @io = io
      end

      def log(message) = Log.line(message.to_s, @io)
      def error(message) = Log.line("ERROR: #{message}", @io)
      def debug(message) = (Log.line(message.to_s, @io) if ENV["PUMA_DEBUG"])
    end

    attr_reader :events, :log_writer, :options

    # +config+: the resolved Configuration; +host_pid+: the host (the shepherd's parent), which takes
    # puma's signals.
    def initialize(config:, host_pid:, log: $stderr)
      @config = config
      @host_pid = host_pid
      @log_writer = LogWriter.new(log)
      @events = Events.new(config, @log_writer)
      @options = { workers: config.workers, min_threads: config.min_threads, max_threads: config.threads,
                   environment: config.environment, binds: config.binds, tag: config.tag }.merge(config.plugin_options)
    end

    # Starts every plugin the configuration names (each plugin's start(launcher)), then their background
    # blocks, each on its own thread, as puma does.
    def start
      return if @config.plugins.empty?

      @config.plugins.each { |name| ::Puma::Plugins.find(name).new.start(self) }
      ::Puma::Plugins.fire_background
    end

    # puma's launcher.restart: a hot restart of the whole Ruby side.
    def restart
      Process.kill("USR2", @host_pid)
    end

    def phased_restart
      Process.kill("USR1", @host_pid)
    end

    def stop
      Process.kill("TERM", @host_pid)
    end
  end
end
