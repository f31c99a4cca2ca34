# The Ractor bridge end to end (docs/CONTROL.md "Bridging the dead time", docs/RACK.md "Ractors"): under a
# load step the controller adds fork workers whose boot is slow (an on_worker_boot hook sleeps 1.5 s) and,
# in the same decision, Ractor slots through EXTRA_SLOTS; the shepherd spreads them, the worker starts them
# as Ractors that dial in, every request is answered, and once the forks have dialled in the bridge slots
# are retired.
require "timing_helper"

class RactorBridgeTest < TimingTest
  TEST_TIMEOUT = 120
  APP = File.join(PumaPlusServer::ROOT, "examples/ractor/config.ru")

  def test_a_load_step_bridges_the_slow_forks_with_ractor_slots_that_serve_and_then_retire
    log = File.join(temp_dir, "decisions.jsonl")
    server = start_server(APP, workers: 1, threads: 2,
                               config: config_file("ractors", "preload_app!",
                                                   "autoscale min: 1, max: 4, target_queue_p95: \"50ms\", bridge: :ractor",
                                                   "on_worker_boot { |index| sleep 1.5 if index.positive? }",
                                                   "decision_log #{log.inspect}", "shed_wait_limit false"))
    # 2 slots × 20/s = 40 rps of capacity against 100 rps of 50 ms requests.
    done = offer(server, rps: 100, seconds: 6, target: "/mix/0/50")
    failed = done.reject { |e| e.status == 200 }
    assert_empty failed, with_log(server, "failed: #{failed.first(3).map { |e| [e.tag, e.status, e.error] }}")

    decisions = File.readlines(log).map { |line| JSON.parse(line) }
    bridged = decisions.find { |d| d.dig("decision", "bridgeDelta").to_i.positive? }
    refute_nil bridged, with_log(server, "no decision added bridge slots: " \
                                         "#{decisions.last(5).map { |d| d.dig('decision', 'reason') }}")
    assert_match(/worker 0: extra slots [1-9]\d* \(was 0\)/, server.output, "the worker started Ractor slots")
    retired = eventually(timeout: 20, interval: 0.5) { server.output.match?(/worker \d+: extra slots 0 \(was [1-9]/) }
    assert retired, with_log(server, "the bridge slots were never retired: " \
                                     "#{decisions.last(3).map { |d| d.dig('decision', 'reason') }}")
  end
end
