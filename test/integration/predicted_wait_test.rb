# The predicted wait of /stats (W_pred = (L+1)·S_slot/c, docs/METRICS.md) forecasts the queue time of the
# requests that arrive next: under a steady overload it is held against the queue time the host then
# measures for them.
require "timing_helper"

class PredictedWaitTest < TimingTest
  TEST_TIMEOUT = 60
  SLOTS = 2
  SERVICE_MS = 50
  CAPACITY = SLOTS * 1000.0 / SERVICE_MS # requests per second: 40
  RATE = 1.5 * CAPACITY                  # open-loop arrivals: 60/s, so the queue grows by 20/s
  OVERLOAD_S = 3.0
  SETTLE_S = 1.0                         # samples before this are not judged: L is still small
  SAMPLE_EVERY_S = 0.1

  # Definition of "tracks within 20%": during the overload, /stats is sampled every 100 ms. For each sample
  # taken after the first second, `predicted` is its predicted_wait_ms and `measured` the queue time
  # (T3 − T2b, from the log line) of the first request that became runnable (T2b) after the sample's
  # response was read. The claim: the median over those samples of measured / predicted lies in
  # [0.8, 1.2], and so does the ratio of the median measured to the median predicted. Once the queue has
  # drained and a slot is idle, predicted_wait_ms is 0.
  def test_predicted_wait_tracks_the_queue_time_of_the_next_arrivals_under_overload
    server = start_logging_server(workers: SLOTS, threads: 1)
    assert_equal SLOTS, server.slots
    client = Timing::ConcurrentClient.new(server.port)
    # Warm with the same 50 ms requests, so that the 10 s mean slot time is the app's and not a warm-up's.
    client.run(20.times.map { |i| exchange("warm#{i}") }, timeout: 10, connect_first: true)

    start = Timing.now_ns + 50 * Timing::MS
    count = (RATE * OVERLOAD_S).round
    arrivals = count.times.map { |i| exchange("p#{i}", send_at: start + (i * 1e9 / RATE).round) }
    samples = []
    sampler = Thread.new do
      stop_at = start + (OVERLOAD_S * 1e9).round
      while Timing.now_ns < stop_at
        before = Timing.now_ns
        queue = server.stats.fetch("queue")
        samples << { before: before, after: Timing.now_ns, predicted_ms: queue.fetch("predicted_wait_ms"), depth: queue.fetch("depth") }
        sleep SAMPLE_EVERY_S
      end
    end
    client.run(arrivals, timeout: 30)
    sampler.join
    failed = arrivals.reject { |e| e.status == 200 }
    assert_empty failed, with_log(server, "unanswered or failed: #{failed.first(5).map { |e| [e.tag, e.status, e.error] }}")

    by_runnable = records_for(server, arrivals.map(&:tag)).values.sort_by(&:t2b)
    last_arrival = arrivals.map(&:sent_at).max
    pairs = samples.filter_map do |s|
      next if s[:before] < start + (SETTLE_S * 1e9).round || s[:after] > last_arrival

      nxt = by_runnable.find { |r| r.t2b > s[:after] } or next
      s.merge(measured_ms: nxt.queue / 1e6, next: nxt.id)
    end
    table = pairs.map { |p| "L=#{p[:depth]} predicted #{p[:predicted_ms].round(1)} measured #{p[:measured_ms].round(1)}" }
    diag "#{pairs.size} samples: #{table.join('; ')}"

    assert_operator pairs.size, :>=, 10, with_log(server, "only #{pairs.size} judged samples of #{samples.size}")
    assert(pairs.all? { |p| p[:predicted_ms].positive? }, "predicted_wait_ms was 0 during the overload: #{table}")
    ratios = pairs.map { |p| p[:measured_ms] / p[:predicted_ms] }
    median_ratio = Timing.median(ratios)
    medians_ratio = Timing.median(pairs.map { |p| p[:measured_ms] }) / Timing.median(pairs.map { |p| p[:predicted_ms] })
    diag "median measured/predicted #{median_ratio.round(3)}; ratio of medians #{medians_ratio.round(3)}"
    assert_in_delta 1.0, median_ratio, 0.2, with_log(server, "median of measured/predicted = #{median_ratio.round(3)}: #{table.join('; ')}")
    assert_in_delta 1.0, medians_ratio, 0.2, "median measured / median predicted = #{medians_ratio.round(3)}: #{table.join('; ')}"

    idle = eventually(timeout: 5) { (q = server.stats.fetch("queue"))["busy_slots"].zero? && q }
    assert idle, "a slot never became idle after the overload"
    assert_equal 0, idle.fetch("predicted_wait_ms"), "predicted_wait_ms with an idle slot: #{idle}"
    assert_equal 0, idle.fetch("depth")
  ensure
    sampler&.kill
  end

  private

  def exchange(tag, send_at: nil)
    Timing::Exchange.new(tag: tag, send_at: send_at, bytes: RawHttp.request("GET", "/timing/#{tag}?ms=#{SERVICE_MS}"))
  end
end
