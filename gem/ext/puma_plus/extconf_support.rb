# frozen_string_literal: true

# What the gem's extconf.rb files share: mkmf, or, where it cannot run, a Makefile that builds nothing, so
# that the gem installs without that extension (each one's Ruby fallback says what that costs).
module PumaPlusExtconf
  # Writes a Makefile whose targets do nothing, and ends the extconf.
  def self.build_nothing
    File.write("Makefile", "all install clean:\n\t@:\n")
    exit 0
  end
end

begin
  require "mkmf"
rescue SystemExit
  # mkmf aborts when Ruby's headers are missing (no ruby-dev).
  PumaPlusExtconf.build_nothing
end
