# Fairness across connections (the Heroku incident in shared/seeds): one keep-alive connection that
# pipelines a backlog must not make a request on another connection wait behind that whole backlog, because
# every request is its own queue entry and no connection holds a worker between requests.
require "server_helper"

class FairnessTest < IntegrationTest
  TEST_TIMEOUT = 60

  def test_new_connection_is_served_while_another_connection_pipelines_twenty_requests
    server = start_server(app("probe.ru"), workers: 1, threads: 2)
    assert_equal 2, server.slots

    a = server.connect
    b = server.connect
    a.write((1..20).map { |i| RawHttp.request("GET", "/sleep?ms=200&id=a#{i}") }.join)
    # A's backlog is in the host first: A runs on both slots and its next request waits in the queue.
    a_first = eventually(timeout: 10, interval: 0.02) do
      queue = server.stats.fetch("queue")
      queue["busy_slots"] == 2 && queue["depth"] >= 1
    end
    assert a_first, with_log(server, "A's pipelined requests never filled both slots and the queue")
    b_sent = monotonic
    b.write(RawHttp.request("GET", "/sleep?ms=200&id=b"))

    a_reader = Thread.new { 20.times.map { a.read_response(timeout: 15) } }
    b_response = b.read_response(timeout: 10)
    b_latency = b_response.received_at - b_sent
    a_responses = a_reader.value
    diag "B answered #{(b_latency * 1000).round} ms after it was sent; A's 20th after #{((a_responses.last.received_at - b_sent) * 1000).round} ms"

    assert_equal 200, b_response.status
    assert_match(/\Ab \d+\n\z/, b_response.body)
    assert_operator b_latency, :<=, 0.6,
                    with_log(server, "B waited #{(b_latency * 1000).round} ms behind A's pipelined backlog (limit 600 ms)")
    assert_equal (1..20).map { |i| "a#{i}" }, a_responses.map { |r| r.body.split.first }
    assert(a_responses.all? { |r| r.status == 200 })
  ensure
    a&.close
    b&.close
  end
end
