# Shedding and health checks under slot exhaustion (seed 002, docs/CONTROL.md "Shedding"): a request whose
# predicted wait exceeds the limit is answered 503 with Retry-After at once, the slots keep serving at
# capacity, and a health check is never shed and never waits behind app requests.
require "timing_helper"

class SheddingTest < TimingTest
  TEST_TIMEOUT = 90

  def exchange(tag, target, send_at: nil)
    Timing::Exchange.new(tag: tag, send_at: send_at,
                         bytes: RawHttp.request("GET", target, {}, host: "127.0.0.1"))
  end

  # probe.ru on one worker of +threads+ slots with the +config+ directives, returned once one request per
  # slot of +warm_ms+ has taught the shedding prediction S. It knows S when /stats reports slot_mean_ms:
  # the host's once-a-second tick moves finished slot times into the windows /stats reads and refreshes
  # the S that submit reads in one step. Returns [server, ConcurrentClient].
  def start_server_knowing_slot_time(threads:, warm_ms:, config:)
    server = start_server(app("probe.ru"), workers: 1, threads: threads, config: config_file(*config))
    client = Timing::ConcurrentClient.new(server.port)
    client.run(threads.times.map { |i| exchange("warm#{i}", "/sleep?ms=#{warm_ms}") }, timeout: 10)
    queue = settled_queue_stats(server) { |q| q["slot_mean_ms"] }
    refute_nil queue["slot_mean_ms"], with_log(server, "the host never learned the mean slot time")
    [server, client]
  end

  # Seed 002's shape, shortened to 8 s: 500 ms requests at 60 rps against 5 slots (10 rps of capacity),
  # with a health probe every second. client_timeout 5 gives a shed limit of 1.25 s.
  def test_slot_exhaustion_sheds_the_excess_at_once_serves_at_capacity_and_never_fails_a_probe
    server, client = start_server_knowing_slot_time(threads: 5, warm_ms: 500,
                                                    config: ["client_timeout 5", 'health_check_path "/pid"'])

    seconds = 8
    start = Timing.now_ns + 50 * Timing::MS
    load = (60 * seconds).times.map do |i|
      exchange("r#{i}", "/sleep?ms=500&id=r#{i}", send_at: start + (i * 1e9 / 60).round)
    end
    probes = seconds.times.map { |i| exchange("probe#{i}", "/pid", send_at: start + i * 1_000_000_000 + 500_000) }
    Timing.in_child { client.run(load + probes, timeout: 40) }.then { |done| load, probes = done.partition { |e| e.tag.start_with?("r") } }

    probe_ms = probes.map { |e| (e.elapsed / 1e6).round(1) }
    diag "probe latencies (ms): #{probe_ms}"
    assert(probes.all? { |e| e.status == 200 }, "probes: #{probes.map { |e| [e.status, e.error] }}")
    assert_operator probe_ms.max, :<, 5000, "a probe took longer than its 5 s timeout"

    served = load.select { |e| e.status == 200 }
    shed = load.select { |e| e.status == 503 }
    others = load - served - shed
    assert_empty others, "neither 200 nor 503: #{others.first(3).map { |e| [e.tag, e.status, e.error] }}"
    # Goodput at capacity: 5 slots × 2/s over the run, plus what the queue held at the end (limit / S · c).
    assert_operator served.size, :>=, 10 * seconds * 0.8, "served only #{served.size}"
    assert_operator served.size, :<=, 10 * seconds + 40, "served #{served.size}: nothing was shed?"
    shed_ms = shed.map { |e| e.elapsed / 1e6 }.sort
    diag "shed #{shed.size}, served #{served.size}; shed latency p50 #{Timing.percentile(shed_ms, 50).round(2)} ms, " \
         "p99 #{Timing.percentile(shed_ms, 99).round(2)} ms, max #{shed_ms.max.round(2)} ms"
    assert_operator shed.size, :>=, 60 * seconds / 2
    assert(shed.all? { |e| Integer(e.header("Retry-After") || "0") >= 1 }, "a 503 without Retry-After")
    assert_operator Timing.percentile(shed_ms, 50), :<, 5, "shed answers are not immediate"
    served_ms = served.map { |e| e.elapsed / 1e6 }
    assert_operator served_ms.max, :<, 1250 + 500 + 1000, "a served request waited past the limit"

    queue = settled_queue_stats(server) { |q| q["shed"] == shed.size }
    assert_equal shed.size, queue["shed"], "/stats queue.shed"
    exposition = Timing.parse_exposition(metrics(server))
    assert_equal shed.size, exposition["puma_plus_requests_shed_total"].to_i
  end

  def test_host_answered_health_check_reports_slots_while_every_slot_is_busy
    server, client = start_server_knowing_slot_time(threads: 1, warm_ms: 500, # S known to the prediction
                                                    config: ["shed_wait_limit false", 'health_check_path "/up", answer: :host'])
    busy = 4.times.map { |i| exchange("b#{i}", "/sleep?ms=1500") }
    runner = Thread.new { client.run(busy, timeout: 20) }
    eventually(timeout: 5) { server.stats.dig("queue", "depth") == 3 }
    started = monotonic
    response = server.request("GET", "/up")
    elapsed = monotonic - started
    assert_equal 200, response.status
    body = JSON.parse(response.body)
    assert_equal({ "status" => "ok", "live_slots" => 1, "busy_slots" => 1, "queue_depth" => 3 },
                 body.slice("status", "live_slots", "busy_slots", "queue_depth"))
    assert_operator body["predicted_wait_ms"], :>=, 4 * 500 / 1, "W_pred = (L + 1) · S / c"
    assert_operator elapsed, :<, 0.5, "the host's health answer waited"
    runner.join
  end

  def test_app_health_check_jumps_the_queue_and_is_never_shed
    server, client = start_server_knowing_slot_time(threads: 1, warm_ms: 1000, # S known to the prediction
                                                    config: ["shed_wait_limit 0.5", 'health_check_path "/pid"'])
    # "first" must take the only slot before "second" arrives: a client late by more than the gap sends
    # both at once over two new connections, the host may take them in either order, and then "second"
    # gets the idle slot and "first" is (rightly) shed. The start is taken in the client process, after
    # the fork, and the gap is 300 ms so that a loaded machine does not close it.
    queued = lambda do
      start = Timing.now_ns
      [exchange("first", "/sleep?ms=1000", send_at: start), exchange("second", "/sleep?ms=1000", send_at: start + 300 * Timing::MS),
       exchange("health", "/pid", send_at: start + 350 * Timing::MS)]
    end
    done = Timing.in_child { client.run(queued.call, timeout: 20) }.to_h { |e| [e.tag, e] }
    assert_equal 200, done["first"].status
    assert_equal 503, done["second"].status, "W_pred 2 s > 0.5 s: shed"
    assert_equal 200, done["health"].status, "a health check is never shed"
    assert_operator done["health"].elapsed / 1e9, :<, 1.5, "the health check waited for more than the one running request"
  end
end
