# The Rack 3.1 / Sinatra 4.1 load path for the integration tests that run an app on Rack 3: script/rack3
# fetches trixie's packages once into build/rack3 (gitignored) and prints their lib directories, which the
# test passes to the server as RUBYLIB, so the shepherd and its workers load Rack 3.1 instead of Debian's 2.2.
require "server_helper"

module Rack3LoadPath
  SCRIPT = File.join(PumaPlusServer::ROOT, "script/rack3")

  # The RUBYLIB value (directories joined with ":"); fails under CI (skips elsewhere) when the fetch fails.
  def rack3_rubylib
    output = IO.popen([SCRIPT], err: File::NULL, &:read)
    skip_or_fail("script/rack3 could not fetch Rack 3.1 from Debian trixie") unless $?.success?
    dirs = output.split("\n")
    skip_or_fail("script/rack3 gave no rack-3.x directory") unless dirs.any? { |d| d.include?("/rack-3.") }
    dirs.join(":")
  end
end
