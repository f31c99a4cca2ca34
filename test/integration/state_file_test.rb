# The state file (`-S`, state_path) is written by a JSON encoder: a control token holding a double quote, a
# backslash and a newline reads back exactly through the real `puma-plus ctl -S`, which authenticates with it.
require "server_helper"
require "open3"
require "yaml"

class StateFileTest < IntegrationTest
  TOKEN = "to\"k\\en\nsecond line"

  def test_ctl_reads_back_a_token_with_quote_backslash_and_newline
    dir = temp_dir
    state = File.join(dir, "run", "puma.state")
    server = start_server(app("probe.ru"), workers: 1, threads: 1, args: ["-S", state, "--control-token", TOKEN])

    loaded = YAML.safe_load(File.read(state))
    assert_equal TOKEN, loaded["control_auth_token"]
    assert_equal "tcp://127.0.0.1:#{server.control_port}", loaded["control_url"]
    assert_equal server.pid, loaded["pid"]

    out, err, status = Open3.capture3(PumaPlusServer::EXE, "ctl", "-S", state, "status")
    assert status.success?, "ctl -S status failed: #{err}"
    assert_equal "puma-plus is running (host pid #{server.pid})\n", out

    # The token is what lets ctl in: with another one the control app refuses it.
    _, err, status = Open3.capture3(PumaPlusServer::EXE, "ctl", "-S", state, "-T", "wrong", "status")
    refute status.success?
    assert_match(/refused the token \(403\)/, err)

    assert server.stop&.success?
    refute File.exist?(state), "the state file is removed at stop"
  end
end
