# GVL wait per request in /stats and /metrics (docs/METRICS.md): on Ruby 3.2+ the workers measure it and the
# host reports its percentiles, its share of service time and a histogram, high for CPU-bound requests that
# two threads run under one GVL and near zero for requests that sleep; on Ruby 3.1 the same fields say
# unknown (null, NaN), never 0.
require "timing_helper"
require "net/http"

class GvlStatsTest < TimingTest
  APP = File.join(PumaPlusServer::ROOT, "bench/app/config.ru")

  # Runs +count+ GET +path+ on +clients+ keep-alive connections at once.
  def hammer(server, path, clients: 4, count: 24)
    clients.times.map do
      Thread.new do
        Net::HTTP.start("127.0.0.1", server.port) { |http| (count / clients).times { assert_equal "200", http.get(path).code } }
      end
    end.each(&:join)
  end

  def test_gvl_wait_is_reported_per_request_where_ruby_measures_it_and_unknown_where_it_cannot
    server = start_server(APP, workers: 1, threads: 2)
    hammer(server, "/mix/20/0")
    queue = settled_queue_stats(server) { |q| q.dig("windows", "10s", "count") >= 24 }
    exposition = Timing.parse_exposition(metrics(server))
    if GVL_WAIT_MEASURED
      assert_equal 24, queue.dig("windows", "10s", "gvl_count"), queue.inspect
      # two threads of 20 ms of Ruby each: every request waits for the other's about as long as it runs
      assert_operator queue["gvl_wait_ratio"], :>=, 0.3, queue.inspect
      assert_operator queue["gvl_wait_p95_ms"], :>, 5, queue.inspect
      assert_equal 24, exposition["puma_plus_gvl_wait_seconds_count"]
      assert_operator exposition["puma_plus_gvl_wait_ratio"], :>=, 0.3
      assert_equal "histogram", exposition.types["puma_plus_gvl_wait_seconds"]
    else
      assert_equal 0, queue.dig("windows", "10s", "gvl_count"), queue.inspect
      assert_nil queue["gvl_wait_ratio"], "Ruby #{RUBY_VERSION}: unknown, not 0"
      assert_nil queue["gvl_wait_p50_ms"]
      assert_nil queue.dig("windows", "10s", "gvl_wait_p95_ms")
      assert_equal 0, exposition["puma_plus_gvl_wait_seconds_count"]
      assert exposition["puma_plus_gvl_wait_ratio"].nan?, "Ruby #{RUBY_VERSION}: NaN, not 0"
    end
  end

  def test_requests_that_sleep_hardly_wait_for_the_gvl
    skip "Ruby #{RUBY_VERSION} has no GVL instrumentation API (3.2+): GVL wait is unknown" unless GVL_WAIT_MEASURED
    server = start_server(APP, workers: 1, threads: 2)
    hammer(server, "/mix/0/50", count: 16)
    queue = settled_queue_stats(server) { |q| q.dig("windows", "10s", "gvl_count") >= 16 }
    assert_operator queue["gvl_wait_ratio"], :<, 0.1, queue.inspect
  end
end
