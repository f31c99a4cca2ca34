# frozen_string_literal: true

# The gem's version, read by the gemspec, and the Ruby it runs on, both named by `puma-plus --version` and the
# shepherd's boot line; it sits outside the request path.
module PumaPlus
  VERSION = "0.1.0"

  # The Ruby of this process as the version and boot lines name it: "ruby 3.3.8p144, YJIT on". "YJIT off"
  # when this Ruby has YJIT but it is not enabled (RUBY_YJIT_ENABLE=1 or --yjit enables it), "no YJIT" when it
  # was built without. The shepherd's forked workers run on the same Ruby, with the same YJIT setting.
  def self.ruby_description
    yjit = if !defined?(RubyVM::YJIT) then "no YJIT"
           elsif RubyVM::YJIT.enabled? then "YJIT on"
           else "YJIT off"
           end
    "ruby #{RUBY_VERSION}p#{RUBY_PATCHLEVEL}, #{yjit}"
  end
end
