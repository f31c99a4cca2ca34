# `rackup -s puma_plus` finds the handler the way it finds puma's and serves through puma-plus: under
# Debian's Rack 2.2 (its rackup, Rack::Handler) and under Rack 3.1 with rackup 2.1 (Rackup::Handler), both
# from script/rack3's Debian trixie packages. The handler comes from this checkout's gem/lib.
require "server_helper"
require "rack3_helper"

class RackHandlerTest < IntegrationTest
  include Rack3LoadPath

  TEST_TIMEOUT = 120
  HELLO = File.join(PumaPlusServer::ROOT, "examples/hello/config.ru")
  GEM_LIB = File.join(PumaPlusServer::ROOT, "gem/lib")

  def serve_hello(command, rubylib)
    server = start_server(command: command + ["-s", "puma_plus", "-o", "127.0.0.1", "-p", "0", HELLO],
                          chdir: temp_dir, env: { "RUBYLIB" => rubylib })
    response = server.request("GET", "/")
    assert_equal [200, "Hello from puma-plus\n"], [response.status, response.body], with_log(server, "")
    server
  end

  def test_rackup_s_puma_plus_under_rack_2
    rackup = self.class.find_executable("rackup") or skip_or_fail("no rackup on PATH (Debian ruby-rack)")
    serve_hello([RbConfig.ruby, rackup], GEM_LIB) # on this Ruby, not the one Debian's #! names
  end

  def test_rackup_s_puma_plus_under_rack_3_1_with_rackup_2_1
    rubylib = rack3_rubylib
    bin = File.expand_path("../bin/rackup", rubylib.split(":").find { |dir| dir.include?("/rackup-2.") } ||
                                              skip_or_fail("script/rack3 gave no rackup-2.x directory"))
    server = serve_hello([RbConfig.ruby, bin], "#{GEM_LIB}:#{rubylib}")
    refute_match(/Rack::Handler is deprecated|NameError/, server.output)
  end
end
