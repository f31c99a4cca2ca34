# worker_timeout: a worker process whose Ruby threads cannot run (here: stopped with SIGSTOP) stops checking
# in, and the shepherd kills and replaces it after worker_timeout seconds, as puma does.
require "server_helper"

class LifecycleWorkerTimeoutTest < IntegrationTest
  def test_a_worker_that_stops_checking_in_is_killed_and_replaced_after_worker_timeout
    dir = temp_dir
    config = File.join(dir, "puma-plus.rb")
    File.write(config, "workers 1\nthreads 1, 1\nworker_timeout 2\n")
    server = start_server(app("probe.ru"), config: config)
    stuck = server.worker_pids.first
    Process.kill("STOP", stuck)
    replaced = eventually(timeout: 20) { (pids = server.worker_pids).size == 1 && pids.first != stuck }
    assert replaced, with_log(server, "the stopped worker was not replaced")
    assert_includes server.output, "(pid #{stuck}) did not check in within 2 s; killing it"
    refute PumaPlusServer.alive?(stuck)
    assert_equal 200, server.request("GET", "/").status
  ensure
    Process.kill("CONT", stuck) if stuck && PumaPlusServer.alive?(stuck)
  end
end
