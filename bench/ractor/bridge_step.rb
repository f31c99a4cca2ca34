# frozen_string_literal: true

# What the Ractor bridge buys on a real host (docs/RACK.md, "Ractors"): the load step of
# test/integration/ractor_bridge_test.rb — examples/ractor/config.ru at -w 1 -t 2, forks that boot in 1.5 s
# (an on_worker_boot sleep), 100 rps of /mix/0/50 for 6 s against 40 rps of capacity — run ROUNDS times
# with `ractors` + `autoscale bridge: :ractor` and with plain threads + fork alone, printing answered
# requests and latency p50 / p99 / max (send time to response, ms) per run, and when the host's live slots
# changed during each (polled every 50 ms). Bounded: each run is 6 s of
# load plus boot and stop; the servers are stopped by the integration helpers.
#
#   ruby -Itest/integration bench/ractor/bridge_step.rb [ROUNDS]      (default 3; needs script/build)

require "timing_helper"
require_relative "../../test/integration/ractor_bridge_test"

ROUNDS = Integer(ENV.fetch("ROUNDS", ARGV.first || "3"))

class BridgeStep < RactorBridgeTest
  TEST_TIMEOUT = 600

  # [answered 200, offered, p50, p99, max] of one run.
  def step(bridge)
    lines = ["preload_app!", "autoscale min: 1, max: 4, target_queue_p95: \"50ms\"#{', bridge: :ractor' if bridge}",
             "on_worker_boot { |index| sleep 1.5 if index.positive? }", "shed_wait_limit false"]
    lines.unshift("ractors") if bridge
    server = start_server(APP, workers: 1, threads: 2, config: config_file(*lines))
    done, live = watching_live_slots(server) { offer(server, rps: 100, seconds: 6, target: "/mix/0/50") }
    server.stop
    latencies = done.map { |e| (e.done_at - e.send_at) / 1e6 }.sort
    [done.count { |e| e.status == 200 }, done.size, latencies[latencies.size / 2],
     latencies[(latencies.size * 0.99).ceil - 1], latencies.last, live]
  end

  # Runs the block while polling the host's live slots every 50 ms; returns the block's value and each
  # change as "ms since the block began: live slots", so a round shows when the bridge's slots went live.
  def watching_live_slots(server)
    changes = []
    running = true
    started = Timing.now_ns
    watcher = Thread.new do
      last = nil
      while running
        live = server.stats.dig("queue", "live_slots")
        changes << "#{(Timing.now_ns - started) / Timing::MS}: #{live}" unless live == last
        last = live
        sleep 0.05
      end
    end
    [yield, changes]
  ensure
    running = false
    watcher&.join
  end

  def test_print_the_step_with_and_without_the_bridge
    ROUNDS.times do
      *bridged, bridged_live = step(true)
      *alone, alone_live = step(false)
      puts format("Ractor bridge: %d/%d ok, p50 %.0f p99 %.0f max %.0f ms | fork alone: %d/%d ok, " \
                  "p50 %.0f p99 %.0f max %.0f ms", *bridged, *alone)
      puts "  live slots (ms: slots), Ractor bridge: #{bridged_live.join(', ')}; fork alone: #{alone_live.join(', ')}"
    end
  end
end

# Only this file's row, not the integration test it builds on.
RactorBridgeTest.send(:undef_method, :test_a_load_step_bridges_the_slow_forks_with_ractor_slots_that_serve_and_then_retire)
