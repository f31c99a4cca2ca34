# Config reload and `puma-plus ctl`: the control app (with its auth token, found through the state file)
# takes pumactl's verbs; reload-config starts a new generation that reads the edited config file while the
# listeners stay open, under 100 requests per second with zero failures; stop is a graceful stop.
require "server_helper"
require "load_loop"

class ConfigReloadTest < IntegrationTest
  TEST_TIMEOUT = 120
  EXE = PumaPlusServer::EXE

  def ctl(*args)
    output = IO.popen([EXE, "ctl", *args, { err: %i[child out] }], &:read)
    [$?.exitstatus, output]
  end

  # /stats with the token the config sets.
  def stats(server)
    JSON.parse(Net::HTTP.get(URI("http://127.0.0.1:#{server.control_port}/stats?token=s3cret")))
  end

  def write_config(dir, threads)
    File.write(File.join(dir, "puma-plus.rb"), <<~RUBY)
      workers 2
      threads #{threads}, #{threads}
      state_path "#{dir}/puma.state"
      activate_control_app "tcp://127.0.0.1:0", auth_token: "s3cret"
    RUBY
  end

  def test_ctl_reload_config_under_100_rps_applies_the_edited_file_and_fails_no_request
    dir = temp_dir
    write_config(dir, 2)
    server = start_server(app("probe.ru"), config: File.join(dir, "puma-plus.rb"))
    state = File.join(dir, "puma.state")
    assert_equal [0, "puma-plus is running (host pid #{server.pid})\n"], ctl("-S", state, "status")
    assert_equal 4, stats(server).dig("queue", "live_slots")
    load = LoadLoop.new(server.port, rps: 100).start
    assert eventually(timeout: 10, interval: 0.05) { load.ok >= 50 }

    write_config(dir, 3)
    assert_equal [0, "Command reload-config sent success\n"], ctl("-S", state, "reload-config")
    assert server.await_line(/\Apuma-plus: generation 1 retired; hot restart done\z/, 60),
           with_log(server, "the reload did not finish")
    served_before = load.ok
    assert eventually(timeout: 10, interval: 0.05) { load.ok >= served_before + 50 }
    result = load.stop
    assert_empty result.failures, with_log(server, "failed requests during the config reload")
    stats = stats(server)
    assert_equal 6, stats.dig("queue", "live_slots"), "3 threads x 2 workers from the edited file"
    assert_equal [3, 3], stats["worker_status"].map { |w| w.dig("last_status", "max_threads") }
    diag("config reload: #{result.ok} requests served, 0 failed")
  end

  def test_a_reload_with_a_broken_config_file_keeps_the_running_generation_serving
    dir = temp_dir
    write_config(dir, 1)
    server = start_server(app("probe.ru"), config: File.join(dir, "puma-plus.rb"))
    File.write(File.join(dir, "puma-plus.rb"), "workers 1\nwokers 2\n")
    assert_equal 0, ctl("-S", File.join(dir, "puma.state"), "reload-config").first
    assert server.await_line(/\Apuma-plus: hot restart failed: generation 2: .*; generation 1 keeps serving\z/, 60),
           with_log(server, "the failed reload was not reported")
    assert_includes server.output, "#{dir}/puma-plus.rb:2: unknown directive \"wokers\""
    assert_equal 200, server.request("GET", "/").status
    assert_equal 0, stats(server)["phase"]
  end

  def test_debians_pumactl_drives_the_control_app_with_its_token
    pumactl = self.class.find_executable("pumactl") or skip_or_fail("no pumactl on PATH (Debian puma)")
    dir = temp_dir
    write_config(dir, 1)
    server = start_server(app("probe.ru"), config: File.join(dir, "puma-plus.rb"))
    control = ["-C", "tcp://127.0.0.1:#{server.control_port}", "-T", "s3cret"]
    stats = IO.popen([pumactl, *control, "stats"], &:read)
    assert_match(/\ACommand stats sent success\n\{.*"worker_status"/m, stats)
    old = stats(server)["worker_status"].map { |w| w["pid"] }
    assert_equal "Command phased-restart sent success\n", IO.popen([pumactl, *control, "phased-restart"], &:read)
    assert server.await_line(/\Apuma-plus: phased restart done\z/, 60), with_log(server, "no phased restart")
    assert eventually(timeout: 10) { (stats(server)["worker_status"].map { |w| w["pid"] } & old).empty? }
    assert_equal "Command stop sent success\n", IO.popen([pumactl, *control, "stop"], &:read)
    assert server.wait(20)&.success?, with_log(server, "pumactl stop is a graceful stop")
  end

  def test_ctl_needs_the_token_and_stop_is_a_graceful_stop
    dir = temp_dir
    write_config(dir, 1)
    server = start_server(app("probe.ru"), config: File.join(dir, "puma-plus.rb"))
    url = "tcp://127.0.0.1:#{server.control_port}"
    status, output = ctl("--control-url", url, "-T", "wrong", "stop")
    assert_equal [1, "puma-plus ctl: the control app refused the token (403)\n"], [status, output]
    assert_equal 403, Net::HTTP.get_response(URI("http://127.0.0.1:#{server.control_port}/stats")).code.to_i
    assert_equal [0, "Command stop sent success\n"], ctl("-S", File.join(dir, "puma.state"), "stop")
    exit_status = server.wait(20)
    assert exit_status&.success?, with_log(server, "ctl stop should stop the host with status 0")
    assert_includes server.output, "puma-plus: stopping (control app stop)"
    refute File.exist?(File.join(dir, "puma.state")), "the state file goes with the host"
    assert_equal 1, ctl("-S", File.join(dir, "puma.state"), "status").first
  end
end
