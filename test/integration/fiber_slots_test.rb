# Fiber slots (`--fibers N`, docs/CONFIG.md "Fiber slots"): the real host and a real worker whose slots are
# fibers of one thread under Async's scheduler. Fifty requests that each sleep 100 ms (a non-blocking sleep)
# run at once on one worker; an app that blocks the thread is still served, and the wait it causes shows as
# GVL wait in /stats and a warning in the log (docs/METRICS.md "GVL wait on fiber slots"); WebSocket events
# run on them; TERM drains; and Rack::Lint's conformance suite (hijack and streaming bodies included) passes
# on fiber slots.
require "timing_helper"
require "net/http"
require "rack_conformance_test"
require "web_socket_client"

class FiberSlotsTest < TimingTest
  APP = <<~RUBY
    # /sleep: 100 ms of Kernel#sleep, which waits through the fiber scheduler; /sleep?ms=N: N ms.
    # /block: 50 ms of busy loop, which holds the thread every fiber slot of the worker runs on.
    run lambda { |env|
      case env["PATH_INFO"]
      when "/sleep"
        sleep Integer(env["QUERY_STRING"][/ms=(\\d+)/, 1] || 100) / 1000.0
      when "/block"
        deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 0.05
        nil while Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
      end
      [200, { "content-type" => "text/plain" }, [env["puma_plus.slot_kind"]]]
    }
  RUBY

  def start_fibers(fibers)
    rackup = File.join(temp_dir, "config.ru")
    File.write(rackup, APP)
    start_server(rackup, workers: 1, args: ["--fibers", fibers.to_s])
  end

  # GET +path+ on +count+ connections at once; the responses' [status, body] pairs.
  def concurrently(server, path, count)
    Array.new(count) do
      Thread.new { Net::HTTP.get_response(URI("http://127.0.0.1:#{server.port}#{path}")).then { |r| [r.code, r.body] } }
    end.map(&:value)
  end

  def test_fifty_fiber_slots_of_one_worker_sleep_through_fifty_requests_at_once
    server = start_fibers(50)
    assert_equal 50, server.slots
    started = monotonic
    responses = concurrently(server, "/sleep", 50)
    elapsed = monotonic - started
    assert_equal [["200", "fiber"]], responses.uniq
    # one after another they would take 5 s: on one thread they wait together
    assert_operator elapsed, :<, 2.0, with_log(server, "50 requests of 100 ms took #{elapsed.round(2)} s")
  end

  def test_an_app_that_blocks_the_thread_is_served_and_its_wait_is_gvl_wait_in_stats_and_a_warning
    server = start_fibers(10)
    assert_equal [["200", "fiber"]], concurrently(server, "/block", 10).uniq
    queue = settled_queue_stats(server) { |q| q.dig("windows", "10s", "gvl_count") >= 10 }
    # ten 50 ms blocks on one thread: the later requests' fibers waited for the earlier ones
    assert_operator queue["gvl_wait_p95_ms"], :>=, 40, queue.inspect
    assert server.await_line(/a fiber slot waited \d+ ms to run after it was ready: the app blocks the thread/, 5),
           with_log(server, "no blocking warning")
  end

  def test_websocket_events_reach_the_app_on_fiber_slots_and_its_messages_and_broadcasts_reach_the_clients
    server = start_server(app("websocket_held.ru"), workers: 1, args: ["--fibers", "4"])
    clients = Array.new(3) { WebSocketClient.connect("127.0.0.1", server.port, "/ws") }
    clients.each_with_index { |client, i| client.send_text("m#{i}") }
    clients.each_with_index { |client, i| assert_match(/\Am#{i} \d+\z/, client.read_message.last) }
    clients.first.send_text("broadcast")
    assert_equal ["to all"] * 3, clients.map { |client| client.read_message.last }
  ensure
    clients&.each { |client| client.socket.close }
  end

  def test_term_lets_a_sleeping_fiber_finish_its_request_then_the_server_exits_zero
    server = start_fibers(4)
    connection = server.connect
    connection.write(RawHttp.request("GET", "/sleep?ms=1000", host: "127.0.0.1:#{server.port}"))
    sleep 0.3 # the request is now sleeping in its fiber
    Process.kill("TERM", server.pid)
    response = connection.read_response(timeout: 10)
    assert_equal [200, "fiber"], [response.status, response.body], with_log(server, "the in-flight request")
    status = server.wait(15)
    refute_nil status, with_log(server, "the host did not exit within 15 s of TERM")
    assert status.success?, with_log(server, "host exit status: #{status.inspect}")
  ensure
    connection&.close
  end
end

# Rack::Lint (Rack 2.2 and 3.1) over the whole conformance suite, with its worker's slots fibers.
class FiberSlotsRackConformanceTest < RackConformanceTest
  def start_server(rackup, threads: nil, args: [], **options)
    super(rackup, args: args + ["--fibers", threads.to_s], **options)
  end
end
