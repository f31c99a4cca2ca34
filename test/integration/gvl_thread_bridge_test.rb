# GVL-aware thread scaling end to end (docs/CONTROL.md, "The thread bridge and the GVL"), on Ruby 3.2+ where
# the workers measure GVL wait: under a load step whose forked workers boot slowly (an on_worker_boot hook
# sleeps 8 s), the controller adds bridge threads for an IO-bound app (/mix/0/50: the GVL is free), and they
# raise throughput before any fork dials in; for a CPU-bound app (/mix/20/0: the GVL is the bottleneck) it
# adds the forks but no thread, and says why.
require "timing_helper"

class GvlThreadBridgeTest < TimingTest
  TEST_TIMEOUT = 120
  APP = File.join(PumaPlusServer::ROOT, "bench/app/config.ru")
  LOAD_SECONDS = 6

  def setup
    skip "Ruby #{RUBY_VERSION} has no GVL instrumentation API (3.2+): GVL wait is unknown, threads are never added" unless GVL_WAIT_MEASURED
  end

  # 1 worker × 2 threads, forks that dial in 8 s after they are asked for, a thread bridge; returns
  # [server, decision log path].
  def start_bridged
    log = File.join(temp_dir, "decisions.jsonl")
    server = start_server(APP, workers: 1, threads: 2,
                               config: config_file("preload_app!",
                                                   "autoscale min: 1, max: 4, target_queue_p95: \"50ms\", bridge: :thread",
                                                   "on_worker_boot { |index| sleep 8 if index.positive? }",
                                                   "decision_log #{log.inspect}", "shed_wait_limit false"))
    [server, log]
  end

  # Responses completed per second between +from+ and +to+ seconds after +start+.
  def served_per_second(done, start, from, to)
    done.count { |e| e.status == 200 && e.done_at.between?(start + from * 1e9, start + to * 1e9) } / (to - from).to_f
  end

  def decisions(log)
    File.readlines(log).map { |line| JSON.parse(line) }
  end

  def test_threads_are_added_for_an_io_bound_app_and_raise_throughput_before_any_fork_dials_in
    server, log = start_bridged
    # 2 slots of 50 ms requests serve 40 rps; 100 arrive each second.
    done = offer(server, rps: 100, seconds: LOAD_SECONDS, target: "/mix/0/50", timeout: LOAD_SECONDS + 40)
    start = done.first.send_at
    failed = done.reject { |e| e.status == 200 }
    assert_empty failed, with_log(server, "failed: #{failed.first(3).map { |e| [e.tag, e.status, e.error] }}")

    bridged = decisions(log).find { |d| d.dig("decision", "bridgeDelta").to_i.positive? }
    refute_nil bridged, with_log(server, "no decision added threads: " \
                                         "#{decisions(log).last(5).map { |d| d.dig('decision', 'reason') }}")
    assert_match(/the GVL is free \(requests wait for it [\d.]+% of their service time\)/, bridged.dig("decision", "reason"))
    assert_operator bridged.dig("obs", "gvlWaitRatio"), :<, 0.2
    assert_match(/worker 0: extra slots [1-9]\d* \(was 0\)/, server.output, "the worker started bridge threads")
    base = served_per_second(done, start, 0, 1)
    bridged_rate = served_per_second(done, start, 3, LOAD_SECONDS)
    diag("served #{base} rps in the first second (2 slots), #{bridged_rate.round(1)} rps in seconds 3-#{LOAD_SECONDS} " \
         "with the bridge threads; decision: #{bridged.dig('decision', 'reason')}")
    assert_operator bridged_rate, :>, 40 * 1.25, "the threads raised throughput above the 2 slots' 40 rps"
  end

  def test_threads_are_not_added_for_a_cpu_bound_app_whose_gvl_is_the_bottleneck
    server, log = start_bridged
    # 20 ms of Ruby per request: one process's GVL serves at most 50 rps however many threads it runs.
    done = offer(server, rps: 80, seconds: LOAD_SECONDS, target: "/mix/20/0", timeout: LOAD_SECONDS + 40)
    start = done.first.send_at
    assert done.all? { |e| e.status == 200 }, with_log(server, "not every request was answered")

    all = decisions(log)
    added = all.select { |d| d.dig("decision", "delta").to_i.positive? }
    refute_empty added, with_log(server, "no decision added workers: #{all.last(5).map { |d| d.dig('decision', 'reason') }}")
    assert all.none? { |d| d.dig("decision", "bridgeDelta").to_i.positive? },
           "a thread was added: #{all.map { |d| d.dig('decision', 'reason') }}"
    gvl_bound = added.find { |d| d.dig("decision", "reason").include?("bridge: none, the GVL is the bottleneck") }
    refute_nil gvl_bound, "no decision said why: #{added.map { |d| d.dig('decision', 'reason') }}"
    assert_operator gvl_bound.dig("obs", "gvlWaitRatio"), :>=, 0.2
    diag("served #{served_per_second(done, start, 0, 1)} rps in the first second, " \
         "#{served_per_second(done, start, 3, LOAD_SECONDS).round(1)} rps in seconds 3-#{LOAD_SECONDS} (no thread added); " \
         "decision: #{gvl_bound.dig('decision', 'reason')}")
    refute_match(/worker 0: extra slots [1-9]/, server.output, "no bridge thread started")
  end
end
