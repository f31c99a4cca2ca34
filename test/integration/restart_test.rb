# Restarts as puma does them, under 100 requests per second of steady load (half keep-alive, half new
# connections): USR2 (hot restart: a new shepherd generation, then the old one drains), USR1 (phased
# restart: workers replaced one at a time), and TTIN/TTOU (one worker process more / fewer). Every
# non-2xx response and every connection error counts as a failure; the claim is zero.
require "server_helper"
require "load_loop"

class RestartTest < IntegrationTest
  TEST_TIMEOUT = 120

  def start_loaded_server(workers: 2, threads: 2)
    server = start_server(app("probe.ru"), workers: workers, threads: threads)
    load = LoadLoop.new(server.port, rps: 100).start
    assert eventually(timeout: 10, interval: 0.05) { load.ok >= 50 }, with_log(server, "the load never got going")
    [server, load]
  end

  def test_hot_restart_on_usr2_under_100_rps_fails_no_request_and_the_new_generation_takes_over
    server, load = start_loaded_server
    old_pids = server.worker_pids
    Process.kill("USR2", server.pid)
    assert server.await_line(/\Apuma-plus: generation 1 retired; hot restart done\z/, 60),
           with_log(server, "the hot restart did not finish")
    served_before = load.ok
    assert eventually(timeout: 10, interval: 0.05) { load.ok >= served_before + 100 }
    result = load.stop
    assert_empty result.failures, with_log(server, "failed requests during the hot restart")
    new_pids = server.worker_pids
    assert_equal 2, new_pids.size
    assert_empty new_pids & old_pids, "the new generation runs new worker processes"
    assert_empty result.pids.last(50) & old_pids, "requests after the restart are served by the new generation"
    assert(old_pids.none? { |pid| PumaPlusServer.alive?(pid) }, "the old workers exited")
    assert_equal 1, server.stats["phase"], "puma's phase counts generations"
    diag("hot restart: #{result.ok} requests served, 0 failed")
  end

  def test_phased_restart_on_usr1_under_100_rps_replaces_every_worker_one_at_a_time_and_fails_no_request
    server, load = start_loaded_server
    old_pids = server.worker_pids
    Process.kill("USR1", server.pid)
    assert server.await_line(/\Apuma-plus: phased restart done\z/, 60), with_log(server, "the phased restart did not finish")
    assert eventually(timeout: 10) { (server.worker_pids & old_pids).empty? && server.worker_pids.size == 2 },
           with_log(server, "the old workers are still listed")
    served_before = load.ok
    assert eventually(timeout: 10, interval: 0.05) { load.ok >= served_before + 50 }
    result = load.stop
    assert_empty result.failures, with_log(server, "failed requests during the phased restart")
    replaced = server.output.lines.grep(/retired, with status 0/).size
    assert_equal 2, replaced, with_log(server, "each old worker drains and exits 0")
    diag("phased restart: #{result.ok} requests served, 0 failed")
  end

  def test_ttin_adds_a_worker_process_and_ttou_removes_one_without_failing_a_request
    server, load = start_loaded_server
    Process.kill("TTIN", server.pid)
    assert eventually(timeout: 30) { server.worker_pids.size == 3 && server.stats.dig("queue", "live_slots") == 6 },
           with_log(server, "no third worker after TTIN")
    # one signal at a time: two of one kind sent back to back may arrive as one
    Process.kill("TTOU", server.pid)
    assert eventually(timeout: 30) { server.worker_pids.size == 2 && server.stats.dig("queue", "live_slots") == 4 },
           with_log(server, "still three workers after TTOU")
    Process.kill("TTOU", server.pid)
    assert eventually(timeout: 30) { server.worker_pids.size == 1 && server.stats.dig("queue", "live_slots") == 2 },
           with_log(server, "still more than one worker after the second TTOU")
    assert_equal 1, server.stats["workers"]
    result = load.stop
    assert_empty result.failures, with_log(server, "failed requests while scaling")
  end
end
