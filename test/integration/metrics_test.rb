# GET /metrics on the control listener: Prometheus text that promtool accepts, with the histograms, gauges
# and counters of docs/METRICS.md (the WebSocket hub's counts, per-worker slots and memory, the host's
# process and JVM gauges, a predicted wait that stays finite while no worker is connected); the per-response
# Server-Timing header (config switch); and the load balancer's X-Request-Start, which is upstream time and
# never queue time.
require "timing_helper"
require "open3"

class MetricsTest < TimingTest
  TEST_TIMEOUT = 60
  HISTOGRAMS = %w[puma_plus_queue_seconds puma_plus_service_seconds puma_plus_total_seconds
                  puma_plus_body_wait_seconds puma_plus_upstream_seconds].freeze
  GAUGES = %w[puma_plus_queue_depth puma_plus_live_slots puma_plus_busy_slots puma_plus_predicted_wait_seconds
              puma_plus_utilization puma_plus_websockets_held puma_plus_webtransport_sessions].freeze
  COUNTERS = %w[puma_plus_requests_total puma_plus_requests_dropped_total puma_plus_requests_redispatched_total
                puma_plus_requests_shed_total puma_plus_health_checks_total
                puma_plus_webtransport_sessions_refused_total puma_plus_webtransport_streams_refused_total
                puma_plus_webtransport_datagrams_dropped_total puma_plus_webtransport_datagrams_unsent_total].freeze
  PROCESS_GAUGES = %w[puma_plus_worker_slots puma_plus_worker_resident_memory_bytes process_resident_memory_bytes
                      process_open_fds process_max_fds jvm_threads_current jvm_memory_bytes_used].freeze

  def promtool_verdict(promtool, text)
    output, status = Open3.capture2e(promtool, "check", "metrics", stdin_data: text)
    [status.success? && output.strip.empty?, "promtool check metrics (exit #{status.exitstatus}):\n#{output}\n--- /metrics ---\n#{text}"]
  end

  def parent_pid(pid)
    stat = File.read("/proc/#{pid}/stat")
    Integer(stat[(stat.rindex(")") + 2)..].split[1])
  end

  def test_metrics_pass_promtool_check_metrics
    promtool = IntegrationTest.find_executable("promtool") or return skip_or_fail("promtool (Debian's prometheus package) is not installed")
    server = start_server(app("probe.ru"), workers: 1, threads: 2)
    3.times { server.request("GET", "/timing/ok") }
    server.request("GET", "/missing")
    server.request("POST", "/echo", body: "x" * 1000)
    settled_metrics(server) { |e| e["puma_plus_total_seconds_count"] == 5 }
    text = metrics(server)

    clean, verdict = promtool_verdict(promtool, text)
    assert clean, verdict
    PROCESS_GAUGES.each { |name| assert_includes text, "\n# TYPE #{name} gauge\n", "promtool saw #{name}" }
    assert_includes text, "\n# TYPE jvm_gc_collection_seconds summary\njvm_gc_collection_seconds_count{gc=", "GC per collector"
  end

  # The shepherd is stopped (so it cannot replace them) and the workers are killed: no slot is live, and
  # W_pred, unbounded, reads the documented cap of one hour instead of +Inf, in a page promtool still accepts.
  def test_predicted_wait_is_the_finite_cap_while_no_worker_is_connected
    promtool = IntegrationTest.find_executable("promtool") or return skip_or_fail("promtool (Debian's prometheus package) is not installed")
    server = start_server(app("probe.ru"), workers: 1, threads: 2)
    workers = server.worker_pids
    shepherd = server.descendant_pids.find { |pid| parent_pid(pid) == server.pid && !workers.include?(pid) }
    refute_nil shepherd, "the shepherd among #{server.descendant_pids} (workers #{workers})"
    Process.kill("STOP", shepherd)
    begin
      workers.each { |pid| Process.kill("KILL", pid) }
      exposition = settled_metrics(server, timeout: 15) { |e| e["puma_plus_live_slots"] == 0 }
      assert_equal 0, exposition["puma_plus_live_slots"], with_log(server, "the killed workers' links are still live")
      assert_equal 3600, exposition["puma_plus_predicted_wait_seconds"], "no live slot: the cap, never +Inf"
      assert_empty exposition.series("puma_plus_worker_slots"), "no worker process, no per-worker series"
      clean, verdict = promtool_verdict(promtool, metrics(server))
      assert clean, verdict
    ensure
      Process.kill("CONT", shepherd)
    end
  end

  def test_metrics_expose_the_documented_histograms_gauges_and_counters
    server = start_server(app("probe.ru"), workers: 1, threads: 2)
    4.times { assert_equal 200, server.request("GET", "/timing/ok").status }
    assert_equal 404, server.request("GET", "/missing").status
    exposition = settled_metrics(server) { |e| e["puma_plus_total_seconds_count"] == 5 }

    HISTOGRAMS.each do |name|
      assert_equal "histogram", exposition.types[name], "# TYPE of #{name}"
      buckets = exposition.series("#{name}_bucket").map { |key, value| [key[/le="([^"]+)"/, 1], value] }
      bounds = buckets.map(&:first)
      assert_equal 0.0001, Float(bounds.first), "#{name}: smallest bucket #{bounds.first}, want 100 µs"
      assert_equal 30.0, Float(bounds[-2]), "#{name}: largest finite bucket #{bounds[-2]}, want 30 s"
      assert_equal "+Inf", bounds.last, "#{name}: buckets end #{bounds.last}"
      counts = buckets.map(&:last)
      assert_equal counts.sort, counts, "#{name}: buckets are not cumulative: #{buckets}"
      assert_equal exposition["#{name}_count"], counts.last, "#{name}: +Inf bucket != _count"
      refute_nil exposition["#{name}_sum"], "#{name}_sum"
    end
    %w[queue service total].each do |kind|
      assert_equal 5, exposition["puma_plus_#{kind}_seconds_count"], "puma_plus_#{kind}_seconds_count after 5 requests"
    end
    assert_equal 0, exposition["puma_plus_upstream_seconds_count"], "no request carried X-Request-Start"
    GAUGES.each { |name| assert_equal "gauge", exposition.types[name], "# TYPE of #{name}" }
    assert_equal 2, exposition["puma_plus_live_slots"]
    assert_equal 0, exposition["puma_plus_queue_depth"]
    assert_equal 0, exposition["puma_plus_predicted_wait_seconds"], "an idle slot means no wait"
    pid = server.worker_pids.first
    assert_equal 2, exposition["puma_plus_worker_slots{pid=\"#{pid}\",index=\"0\",generation=\"1\",state=\"idle\"}"],
                 exposition.series("puma_plus_worker_slots").to_s
    assert_equal 0, exposition["puma_plus_worker_slots{pid=\"#{pid}\",index=\"0\",generation=\"1\",state=\"busy\"}"]
    worker_rss = exposition["puma_plus_worker_resident_memory_bytes{pid=\"#{pid}\",index=\"0\",generation=\"1\"}"]
    assert_in_delta File.read("/proc/#{pid}/status")[/^VmRSS:\s+(\d+) kB/, 1].to_i * 1024, worker_rss, 8 << 20,
                    "the worker's RSS is its /proc/PID/status VmRSS (within 8 MiB of a moment later)"
    assert_operator exposition["process_resident_memory_bytes"], :>, 20 << 20, "a JVM's resident memory"
    assert_operator exposition["process_open_fds"], :>=, 3
    assert_operator exposition["jvm_threads_current"], :>=, 2
    COUNTERS.each { |name| assert_includes %w[counter], exposition.types[name] || exposition.types[name.sub(/_total\z/, "")], "# TYPE of #{name}" }
    assert_equal 4, exposition['puma_plus_requests_total{status_class="2xx"}'], exposition.series("puma_plus_requests_total").to_s
    assert_equal 1, exposition['puma_plus_requests_total{status_class="4xx"}'], exposition.series("puma_plus_requests_total").to_s
    assert_equal 0, exposition["puma_plus_requests_dropped_total"]
    assert_equal 0, exposition["puma_plus_requests_redispatched_total"]
  end

  def test_server_timing_header_is_sent_only_when_switched_on
    plain = start_server(app("probe.ru"), workers: 1, threads: 1)
    response = plain.request("GET", "/timing/plain?ms=20")
    assert_equal 200, response.status
    assert_empty response.all("Server-Timing"), "Server-Timing without the server_timing directive"

    server = start_logging_server(workers: 1, threads: 1, extra: ["server_timing"])
    response = server.request("GET", "/timing/timed?ms=20")
    assert_equal 200, response.status
    header = response["Server-Timing"]
    m = /\Aqueue;dur=(\d+(?:\.\d+)?), app;dur=(\d+(?:\.\d+)?)\z/.match(header.to_s)
    assert m, "Server-Timing: #{header.inspect}"
    r = records_for(server, ["timed"]).fetch("timed")
    assert_in_delta r.queue / 1e6, Float(m[1]), 0.01, "queue;dur=#{m[1]} vs #{r.line}"
    assert_in_delta r.service / 1e6, Float(m[2]), 1.0, "app;dur=#{m[2]} vs #{r.line}"
    assert_operator Float(m[2]), :>=, 20
  end

  # One request per unit the header may carry (t= seconds with a fraction, ms, µs, ns), each stamped 50 ms
  # before it is sent: all four land in puma_plus_upstream_seconds (about 50 ms each) and none in queue
  # time. Had the 50 ms leaked into queue time, each request's queue time would be at least 50 ms and the
  # queue histogram's sum would grow by at least 0.2 s: the limits below are half of that.
  def test_x_request_start_is_upstream_time_and_never_queue_time
    server = start_logging_server(workers: 1, threads: 2)
    warm_up(server, 5)
    before = settled_metrics(server) { |e| e["puma_plus_queue_seconds_count"].to_i >= 5 }
    stamps = {
      "seconds" => ->(t) { format("t=%.6f", t) },
      "ms" => ->(t) { (t * 1e3).round.to_s },
      "us" => ->(t) { (t * 1e6).round.to_s },
      "ns" => ->(t) { (t * 1e9).round.to_s }
    }
    stamps.each do |unit, stamp|
      value = stamp.call(Process.clock_gettime(Process::CLOCK_REALTIME) - 0.050)
      assert_equal 200, server.request("GET", "/timing/xrs-#{unit}", { "X-Request-Start" => value }).status
    end
    after = settled_metrics(server) { |e| e["puma_plus_upstream_seconds_count"].to_i >= 4 && e["puma_plus_queue_seconds_count"].to_i >= 9 }
    records = records_for(server, stamps.keys.map { |unit| "xrs-#{unit}" })

    assert_equal 0, before["puma_plus_upstream_seconds_count"], "upstream before any X-Request-Start"
    assert_equal 4, after["puma_plus_upstream_seconds_count"], after.series("puma_plus_upstream_seconds_count").to_s
    upstream = after["puma_plus_upstream_seconds_sum"]
    assert_in_delta 4 * 0.050, upstream, 0.1, "4 requests stamped 50 ms early: upstream sum #{upstream} s"
    records.each do |tag, r|
      assert_operator r.queue, :<, 25 * Timing::MS, with_log(server, "#{tag}: queue #{Timing.ms(r.queue)} ms (#{r.line})")
    end
    grown = after["puma_plus_queue_seconds_sum"] - before["puma_plus_queue_seconds_sum"]
    assert_operator grown, :<, 0.1, "the 4 stamped requests added #{grown} s of queue time (upstream leaked in?)"
    diag "upstream sum #{upstream.round(4)} s for 4 requests; their queue time #{records.transform_values { |r| Timing.ms(r.queue) }} ms"
  end
end
