# The README's run command: `script/run` builds and serves examples/hello on 127.0.0.1:9292, and curl
# gets the greeting.
require "server_helper"
require "open3"
require "socket"

class RunScriptTest < IntegrationTest
  TEST_TIMEOUT = 240 # includes an incremental Maven build

  def test_script_run_serves_hello_to_curl_on_port_9292
    return skip_or_fail("port 9292 is taken by another process") if port_taken?(9292)

    server = start_server(command: [File.join(PumaPlusServer::ROOT, "script/run")])
    assert_equal 9292, server.port
    body, status = Open3.capture2("curl", "-sS", "--max-time", "10", "http://127.0.0.1:9292/")
    assert status.success?, "curl failed: #{status.inspect}"
    assert_equal "Hello from puma-plus\n", body
  end

  private

  def port_taken?(port)
    TCPSocket.new("127.0.0.1", port).close
    true
  rescue Errno::ECONNREFUSED
    false
  end
end
