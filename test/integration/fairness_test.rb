# Fairness across connections (the Heroku incident in shared/seeds): one keep-alive connection that
# pipelines a backlog must not make a request on another connection wait behind that whole backlog, because
# every request is its own queue entry and no connection holds a worker between requests.
#
# Shedding is off here: A's backlog (20 x 200 ms on 2 slots) predicts ~1.6 s of wait for its last requests
# with warm slot times, close to the default limit (client_timeout / 4 = 2.5 s), and right after boot the
# prediction's mean slot time is that of the fresh worker's first two requests, 50-150 ms slower each (the
# app's first call loads what it autoloads): when the host's one-second roll fell between them and A's 18th
# request, A18-A20 were shed (503 "server busy: predicted wait 2.6 s"), which is shedding's claim to test
# (shedding_test.rb), not this one's.
require "server_helper"

class FairnessTest < IntegrationTest
  TEST_TIMEOUT = 60

  def test_new_connection_is_served_while_another_connection_pipelines_twenty_requests
    config = File.join(temp_dir, "puma-plus.rb")
    File.write(config, "shed_wait_limit false\n")
    server = start_server(app("probe.ru"), workers: 1, threads: 2, config: config)
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
    answers = a_responses.map { |r| "#{r.status} #{r.body.lines.first&.chomp}" }
    assert_equal (1..20).map { |i| "a#{i}" }, a_responses.map { |r| r.body.split.first },
                 with_log(server, "A's answers, in order: #{answers}")
    assert(a_responses.all? { |r| r.status == 200 }, with_log(server, "A's answers, in order: #{answers}"))
  ensure
    a&.close
    b&.close
  end
end
