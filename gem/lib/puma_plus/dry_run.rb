# frozen_string_literal: true

# `puma-plus --dry-run` (docs/CONFIG.md, "Dry run"): resolves the configuration exactly as the shepherd
# would, prints every setting with the layer it came from (default, env NAME, FILE:LINE, flag --NAME), the
# puma directives that were ignored, and the JDK that would run the host; starts nothing. Runs in the
# puma-plus executable before any JDK is needed.

require_relative "configuration"
require_relative "launcher"

module PumaPlus
  module DryRun
    # Prints the report for +argv+ to +out+ and returns the exit status: 0 when puma-plus could start with
    # this configuration, 1 (after "puma-plus: <problem>" on +err+) when it could not.
    # +bundled_jdk+: where Launcher looks after JAVA_HOME (tests point it elsewhere).
    def self.run(argv, gem_dir:, env: ENV, cwd: Dir.pwd, out: $stdout, err: $stderr,
                 bundled_jdk: Launcher::BUNDLED_JDK)
      config = Configuration.resolve(argv, env: env, cwd: cwd)
      out.puts "puma-plus #{VERSION}: dry run, nothing started"
      out.puts "config files: #{config.config_files.empty? ? 'none' : config.config_files.join(', ')}"
      width = Configuration::DEFAULTS.keys.map(&:length).max
      config.explain.each do |key, value, source|
        out.puts format("  %-#{width}s  %-34s  %s", key, value.inspect, source)
      end
      hooks = Configuration::HOOKS.map { |name| [name, config.hooks[name].size] }.reject { |_, n| n.zero? }
      out.puts "hooks: #{hooks.empty? ? 'none' : hooks.map { |name, n| "#{name} (#{n})" }.join(', ')}"
      out.puts "plugins: #{config.plugins.empty? ? 'none' : config.plugins.join(', ')}"
      config.unsupported.each { |u| out.puts "unsupported: #{u}" }
      config.check_rackup!
      java = Launcher.new(gem_dir: gem_dir, env: env, bundled_jdk: bundled_jdk).find_java_with_version
      out.puts "java: #{java}"
      0
    rescue ConfigError, Launcher::Error => e
      err.puts "puma-plus: #{e.message}"
      1
    end
  end
end
