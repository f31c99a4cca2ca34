# The control app's /stats answers in puma's JSON shape with real numbers, and counts served requests.
require "server_helper"

class StatsTest < IntegrationTest
  TEST_TIMEOUT = 60
  LAST_STATUS_KEYS = %w[backlog running pool_capacity max_threads requests_count busy_threads].freeze

  def test_stats_has_puma_shape_and_requests_count_grows
    server = start_server(app("probe.ru"), workers: 2, threads: 2)
    stats = server.stats

    assert_equal 2, stats["workers"], stats.inspect
    assert_equal 2, stats["booted_workers"], stats.inspect
    assert_equal 2, stats["worker_status"].size, stats.inspect
    stats["worker_status"].each do |worker|
      assert_kind_of Integer, worker["pid"], worker.inspect
      refute_equal server.pid, worker["pid"], "workers are separate processes"
      LAST_STATUS_KEYS.each do |key|
        value = worker.dig("last_status", key)
        assert_kind_of Integer, value, "worker_status[].last_status.#{key} in #{worker.inspect}"
        assert_operator value, :>=, 0
      end
      assert_equal 2, worker.dig("last_status", "max_threads"), worker.inspect
      assert_equal 2, worker.dig("last_status", "running"), "both threads dialled in: #{worker.inspect}"
    end
    assert_equal 2, stats["worker_status"].map { |w| w["pid"] }.uniq.size

    before = requests_count(stats)
    5.times { assert_equal 200, server.request("GET", "/").status }
    grown = eventually(timeout: 3) { requests_count(server.stats) >= before + 5 }
    assert grown, "requests_count went from #{before} to #{requests_count(server.stats)} after 5 requests"
  end

  private

  def requests_count(stats)
    stats["worker_status"].sum { |worker| worker.dig("last_status", "requests_count") }
  end
end
