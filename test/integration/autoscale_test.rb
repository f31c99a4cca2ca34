# Autoscaling end to end (docs/CONTROL.md): the controller bundle ticks the tiered policy on the host's
# queue signals (and decides between ticks when the host's watch sees the queue hot), the fork actuator
# asks the shepherd for workers (WORKER_COUNT), they dial in, the queue drains, and after sustained idle the
# workers are retired; every tick is a replayable log line. Workers whose slots are fibers (`fibers`) are
# added the same way. And the controller bundle can be swapped live under load without a failed request.
require "timing_helper"
require "open3"

class AutoscaleTest < TimingTest
  TEST_TIMEOUT = 120
  JAVA_HOME = ENV.fetch("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64")

  def exchange(tag, target, send_at: nil)
    Timing::Exchange.new(tag: tag, send_at: send_at, bytes: RawHttp.request("GET", target, {}, host: "127.0.0.1"))
  end

  # Open-loop arrivals at `rps` for `seconds`, each `/sleep?ms=ms`; returns the answered exchanges.
  def offer(server, rps:, seconds:, ms:, prefix:)
    start = Timing.now_ns + 50 * Timing::MS
    load = (rps * seconds).round.times.map do |i|
      exchange("#{prefix}#{i}", "/sleep?ms=#{ms}", send_at: start + (i * 1e9 / rps).round)
    end
    client = Timing::ConcurrentClient.new(server.port)
    Timing.in_child { client.run(load, timeout: seconds + 30) }
  end

  def decisions(path)
    File.readlines(path).map { |line| JSON.parse(line) }
  end

  def autoscaling_server(log, *extra)
    start_server(app("probe.ru"), workers: 1, threads: 2,
                                  config: config_file("autoscale min: 1, max: 4, target_queue_p95: \"50ms\"",
                                                      "decision_log #{log.inspect}", "shed_wait_limit false", *extra))
  end

  def test_a_load_step_adds_workers_in_one_decision_serves_everything_and_scales_back_down_after_idle
    log = File.join(temp_dir, "decisions.jsonl")
    server = autoscaling_server(log)
    # Calm first (as a server has a history): the service time is known when the step comes.
    offer(server, rps: 10, seconds: 2, ms: 50, prefix: "calm")
    # 2 slots × 20/s = 40 rps of capacity against 100 rps: the shortfall is about 3 workers' worth.
    done = offer(server, rps: 100, seconds: 6, ms: 50, prefix: "step")
    failed = done.reject { |e| e.status == 200 }
    assert_empty failed, with_log(server, "failed: #{failed.first(3).map { |e| [e.tag, e.status, e.error] }}")
    grew = decisions(log).select { |d| d.dig("decision", "action") == "add" }
    refute_empty grew, "no add decision: #{decisions(log).last(5).map { |d| d.dig('decision', 'reason') }}"
    assert_operator grew.first.dig("decision", "delta"), :>=, 2,
                    "the first step adds the Little's-law shortfall: #{grew.first.dig('decision', 'reason')}"
    # Reaction inside a tick: the queue is hot ~50 ms into the step, long before a tick's second of
    # percentiles shows it; the host's watch calls the controller, whose alarm adds at once.
    alarm = grew.first
    diag "first addition: #{alarm.dig('decision', 'reason')}"
    assert alarm.dig("obs", "alarm"), "the first addition came at a tick: #{alarm.dig('decision', 'reason')}"
    assert_operator alarm.dig("obs", "oldestWaitMs"), :<, 150,
                    "the alarm came more than 100 ms after the oldest request reached the 50 ms target"
    assert_equal ["tiered/1"], decisions(log).map { |d| d["policy"] }.uniq
    assert_operator server.stats["booted_workers"], :>=, 3, "workers dialled in"

    shrunk = eventually(timeout: 40, interval: 0.5) { server.stats["booted_workers"] == 1 }
    assert shrunk, with_log(server, "still #{server.stats['booted_workers']} workers after idle: " \
                                    "#{decisions(log).last(3).map { |d| d.dig('decision', 'reason') }}")
    removal = decisions(log).find { |d| d.dig("decision", "action") == "remove" }
    assert_operator removal.dig("state", "idleTicks"), :>=, 9, "scale-down only after sustained idle"

    replay = File.join(PumaPlusServer::ROOT, "gem/exe/puma-plus")
    out, status = Open3.capture2e(replay, "replay", log)
    assert status.success?, "replay of the live log: #{out}"
    assert_match(/, 0 differ/, out)
  end

  def test_a_load_step_adds_fiber_workers_that_serve_everything_on_fiber_slots
    log = File.join(temp_dir, "decisions.jsonl")
    server = autoscaling_server(log, "fibers 2")
    offer(server, rps: 10, seconds: 2, ms: 50, prefix: "calm")
    done = offer(server, rps: 100, seconds: 6, ms: 50, prefix: "step")
    failed = done.reject { |e| e.status == 200 }
    assert_empty failed, with_log(server, "failed: #{failed.first(3).map { |e| [e.tag, e.status, e.error] }}")
    refute_empty decisions(log).select { |d| d.dig("decision", "action") == "add" }, "no add decision"
    assert_operator server.stats["booted_workers"], :>=, 3, "workers dialled in"
    # Six requests at once on 2 fiber slots per worker: at least three workers answer.
    slots = Array.new(6) { Thread.new { server.request("GET", "/slot?ms=300").body.split } }.map(&:value)
    assert_equal ["fiber"], slots.map(&:first).uniq, "every slot of every worker is a fiber"
    assert_operator slots.map(&:last).uniq.size, :>=, 3, "the added workers serve: #{slots.tally}"
  end

  def test_a_thread_bridge_never_adds_a_thread_on_ruby_3_1_because_its_gain_is_unknown
    skip "Ruby #{RUBY_VERSION} measures GVL wait: gvl_thread_bridge_test holds what the bridge does here" if GVL_WAIT_MEASURED
    log = File.join(temp_dir, "decisions.jsonl")
    server = start_server(app("probe.ru"), workers: 1, threads: 2,
                                           config: config_file("autoscale min: 1, max: 4, target_queue_p95: \"50ms\", bridge: :thread",
                                                               "decision_log #{log.inspect}", "shed_wait_limit false"))
    done = offer(server, rps: 100, seconds: 4, ms: 50, prefix: "thread")
    failed = done.reject { |e| e.status == 200 }
    assert_empty failed, with_log(server, "failed: #{failed.first(3).map { |e| [e.tag, e.status, e.error] }}")
    lines = decisions(log)
    adds = lines.select { |d| d.dig("decision", "action") == "add" }
    refute_empty adds, "the step must add workers: #{lines.last(3).map { |d| d.dig('decision', 'reason') }}"
    assert lines.all? { |d| d.dig("decision", "bridgeDelta").to_i.zero? }, "a bridge slot was added"
    assert lines.all? { |d| d.dig("obs", "bridgeGainKnown") == false }, "the thread bridge's gain must read unknown"
    assert adds.any? { |d| d.dig("decision", "reason").include?("the gain of a bridge slot is unknown") },
           adds.map { |d| d.dig("decision", "reason") }.join("\n")
    settled = eventually(timeout: 5) do
      stats = server.stats
      stats.dig("queue", "live_slots") == stats["booted_workers"] * 2
    end
    assert settled, "a slot beyond threads per worker: #{server.stats.inspect}"
  end

  def test_swapping_the_controller_bundle_under_load_fails_no_request_and_the_next_tick_logs_the_new_policy
    log = File.join(temp_dir, "decisions.jsonl")
    # The variant: the same bundle with only policy.properties changed (docs/CONTROL.md), in the one
    # directory the control app loads controller jars from.
    dir = temp_dir
    server = autoscaling_server(log, "controller_jar_dir #{dir.inspect}")
    variant = File.join(dir, "controller.jar")
    FileUtils.cp(File.join(PumaPlusServer::ROOT, "gem/vendor/java/bundles/controller.jar"), variant)
    File.write(File.join(dir, "policy.properties"), "policy=one-unit/1\n")
    out, status = Open3.capture2e(File.join(JAVA_HOME, "bin/jar"), "uf", variant, "-C", dir, "policy.properties")
    assert status.success?, "jar uf: #{out}"

    swapper = Thread.new do
      sleep 3
      # The operator's verb: `puma-plus ctl controller JAR` (POST /controller?jar=).
      Open3.capture2e(PumaPlusServer::EXE, "ctl", "--control-url", "tcp://127.0.0.1:#{server.control_port}",
                      "-T", server.control_token, "controller", variant)
    end
    done = offer(server, rps: 100, seconds: 7, ms: 10, prefix: "swap")
    out, status = swapper.value
    assert status.success?, "puma-plus ctl controller: #{out}"
    swapped = JSON.parse(out)
    assert_equal "one-unit/1", swapped["policy"]
    diag "swap took #{swapped['swap_ms']} ms"
    failed = done.reject { |e| e.status == 200 }
    assert_empty failed, with_log(server, "failed during the swap: #{failed.first(3).map { |e| [e.tag, e.status, e.error] }}")
    assert eventually(timeout: 5) { decisions(log).last["policy"] == "one-unit/1" }
    policies = decisions(log).map { |d| d["policy"] }
    assert_equal %w[tiered/1 one-unit/1], policies.chunk_while { |a, b| a == b }.map(&:first),
                 "one switch, no tick of the old policy after it"
    out, = Open3.capture2e(PumaPlusServer::EXE, "ctl", "--control-url", "tcp://127.0.0.1:#{server.control_port}",
                           "-T", server.control_token, "controller")
    assert_equal "one-unit/1", JSON.parse(out)["policy"]
  end
end
