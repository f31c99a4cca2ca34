# A client that disconnects while its request is still queued is removed from the queue: the host never
# dispatches it, so the app never runs it.
require "server_helper"

class ClientGoneTest < IntegrationTest
  TEST_TIMEOUT = 60

  def test_request_of_a_client_that_left_while_queued_never_reaches_the_app
    server = start_server(app("probe.ru"), workers: 1, threads: 1)
    assert_equal 1, server.slots
    log = File.join(temp_dir, "calls.log")
    pidfile = File.join(temp_dir, "busy.pid")

    busy = server.connect
    busy.write(RawHttp.request("GET", "/sleep?ms=1000&id=busy&log=#{log}&pidfile=#{pidfile}"))
    assert eventually(timeout: 5, interval: 0.01) { File.exist?(pidfile) }, with_log(server, "the busy request never started")

    leaver = server.connect
    leaver.write(RawHttp.request("GET", "/count-me?id=leaver&log=#{log}"))
    sleep 0.1
    leaver.close

    assert_equal 200, busy.read_response(timeout: 5).status
    # The slot is FIFO: had /count-me stayed queued, it would run before this request.
    after = server.request("GET", "/sleep?id=after&log=#{log}")
    assert_equal 200, after.status

    calls = File.readlines(log, chomp: true).map { |line| line.split.first }
    assert_equal ["/sleep", "/sleep"], calls, with_log(server, "the app saw: #{calls.inspect}")
  ensure
    busy&.close
  end
end
