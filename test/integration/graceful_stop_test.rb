# SIGTERM to the host is a graceful stop: the request already running completes, the host exits 0, and the
# whole process tree (host, shepherd, workers) is gone.
require "server_helper"

class GracefulStopTest < IntegrationTest
  TEST_TIMEOUT = 60

  def test_term_lets_the_running_request_finish_then_exits_zero_leaving_no_process
    server = start_server(app("probe.ru"), workers: 1, threads: 1)
    pidfile = File.join(temp_dir, "running.pid")
    connection = server.connect
    connection.write(RawHttp.request("GET", "/sleep?ms=1000&id=inflight&pidfile=#{pidfile}"))
    assert eventually(timeout: 5, interval: 0.01) { File.exist?(pidfile) }, with_log(server, "the request never started")

    tree = server.descendant_pids
    refute_empty tree, "the host should have a shepherd and workers below it"
    Process.kill("TERM", server.pid)

    response = connection.read_response(timeout: 10)
    assert_equal 200, response.status, with_log(server, "the in-flight request must complete")
    assert_match(/\Ainflight \d+\n\z/, response.body)

    status = server.wait(15)
    refute_nil status, with_log(server, "the host did not exit within 15 s of TERM")
    assert status.success?, with_log(server, "host exit status: #{status.inspect}")
    survivors = (tree + server.group_pids).uniq.select { |pid| PumaPlusServer.alive?(pid) }
    assert_empty survivors, with_log(server, "processes left after the host exited: #{survivors.inspect}")
    refute_match(/starting a replacement/, server.output, "a worker stopped by the shutdown was replaced")
  ensure
    connection&.close
  end
end
