# TERM drains: with every slot busy and more requests waiting in the host's queue, SIGTERM stops the
# listeners, and every request already accepted (running or queued) is still answered 200 before the host
# exits 0.
require "server_helper"

class LifecycleTermDrainTest < IntegrationTest
  def test_term_answers_every_running_and_queued_request_before_exit
    server = start_server(app("probe.ru"), workers: 1, threads: 2)
    log = File.join(temp_dir, "started")
    connections = Array.new(6) do |i|
      connection = server.connect
      connection.write(RawHttp.request("GET", "/sleep?ms=600&id=r#{i}&log=#{log}"))
      connection
    end
    # two run, four wait in the queue (only 2 slots)
    assert eventually(timeout: 10, interval: 0.02) { server.stats.dig("queue", "depth") == 4 },
           with_log(server, "four requests should be queued")
    Process.kill("TERM", server.pid)
    responses = connections.map { |c| c.read_response(timeout: 20) }
    assert_equal [200] * 6, responses.map(&:status), with_log(server, "every accepted request is answered")
    assert_equal (0...6).map { |i| "r#{i}" }.sort, responses.map { |r| r.body.split.first }.sort
    status = server.wait(20)
    assert status&.success?, with_log(server, "the host exits 0 after draining")
    assert_equal 6, File.readlines(log).size, "the app ran each request once"
  ensure
    connections&.each(&:close)
  end
end
