# frozen_string_literal: true

# Holds `puma-plus --version` to naming the gem's version, the Ruby it runs on and whether YJIT is on, which
# the shepherd's boot line repeats (PumaPlus.ruby_description).

require "test_helper"
require "open3"

class PumaPlus::VersionTest < PumaPlus::TestCase
  EXE = File.expand_path("../../exe/puma-plus", __dir__)

  def test_ruby_description_names_this_ruby_and_its_yjit_state
    # RUBY_DESCRIPTION carries "+YJIT" exactly when YJIT is on (Ruby 3.1 to 3.3): the oracle, not the code's own test.
    yjit = if RUBY_DESCRIPTION.include?("+YJIT") then "YJIT on"
           elsif defined?(RubyVM::YJIT) then "YJIT off"
           else "no YJIT"
           end
    assert_equal "ruby #{RUBY_VERSION}p#{RUBY_PATCHLEVEL}, #{yjit}", PumaPlus.ruby_description
  end

  def test_version_line_says_yjit_on_when_ruby_yjit_enable_is_set_and_off_when_not
    skip("this Ruby was built without YJIT") unless defined?(RubyVM::YJIT)

    on, = Open3.capture2e({ "RUBY_YJIT_ENABLE" => "1" }, RbConfig.ruby, EXE, "--version")
    off, = Open3.capture2e({ "RUBY_YJIT_ENABLE" => nil }, RbConfig.ruby, "--disable-yjit", EXE, "--version")
    version = "ruby #{RUBY_VERSION}p#{RUBY_PATCHLEVEL}"
    assert_equal ["puma-plus #{PumaPlus::VERSION} (#{version}, YJIT on)\n",
                  "puma-plus #{PumaPlus::VERSION} (#{version}, YJIT off)\n"], [on, off]
  end
end
