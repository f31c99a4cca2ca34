# frozen_string_literal: true

# The gemspec declares every runtime dependency: each library lib/ requires is the gem's own, a declared
# dependency, or a default gem that stays one in every Ruby the gem supports (3.1 up to 3.5, where logger,
# for one, becomes a bundled gem that Bundler will not load unless it is declared).

require "test_helper"

class PumaPlus::GemspecTest < PumaPlus::TestCase
  GEM_DIR = File.expand_path("../..", __dir__)
  # Default gems (or parts of Ruby itself) in Ruby 3.1 through 3.5 that stay default gems there.
  STAYS_DEFAULT = %w[etc fcntl fileutils io/wait json net/http openssl optparse rbconfig securerandom socket
                     stringio time timeout tmpdir uri yaml].freeze

  def test_every_required_library_is_the_gems_own_a_dependency_or_a_lasting_default_gem
    spec = Gem::Specification.load(File.join(GEM_DIR, "puma-plus.gemspec"))
    declared = spec.runtime_dependencies.map(&:name)
    # lib/ and the puma plugin API directory (PluginLauncher::API_DIR) are both on the load path.
    own = %w[lib lib/puma_plus/puma_api].flat_map do |dir|
      Dir[File.join(GEM_DIR, dir, "**", "*.rb")].map { |f| f.delete_prefix("#{GEM_DIR}/#{dir}/").delete_suffix(".rb") }
    end
    required = Dir[File.join(GEM_DIR, "lib", "**", "*.rb")].flat_map do |file|
      File.read(file).scan(/^\s*require\s+"([^"]+)"/).flatten
    end.uniq.reject { |name| name.include?("\#{") } # puma/plugin/NAME: a plugin, found at run time
    undeclared = required.reject do |name|
      own.include?(name) || STAYS_DEFAULT.include?(name) || declared.include?(name.split("/").first)
    end
    assert_empty undeclared, "required by lib/ but neither declared in the gemspec nor a lasting default gem"
    assert_includes declared, "logger"
  end
end
