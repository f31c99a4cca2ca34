# Exact queue time (issue 3, docs/METRICS.md): the host's seven timing points per request, read from its
# `log_requests` lines, reconcile with what a client measures on the same clock, add up to the total,
# charge a slow upload to body wait and never to queue, and read as (almost) zero on an idle server.
require "timing_helper"

class QueueTimeTest < TimingTest
  TEST_TIMEOUT = 90
  MS = Timing::MS
  US = Timing::US

  # 40 requests to 4 slots at once, 100 ms each: 10 waves of 4. Per request the host's total T6 − T1 is the
  # client's own stopwatch (first byte written → last byte received) within 2 ms, plus the time the bytes
  # may wait unread in the kernel (READ_LAG_ALLOWANCE); every part is ≥ 0 and the
  # parts add up to the total; the app's env agrees with the log line; and the queue times are those of a
  # FIFO of 4 slots fed the measured service times (p50 and p95 within 10%).
  #
  # The client runs in its own process (Timing.in_child) on connections opened beforehand, and writes the
  # 40 requests 1 ms apart: all 40 are in flight together (the first response comes after 100 ms), but
  # their first bytes do not all land in one instant. Time that bytes wait in the kernel before the host's
  # event loop reads them is before T1, and no server can see it; 40 at once on a 2-core machine, while
  # the first wave's workers start, make it several ms, which would measure the machine, not T1..T6.
  def test_host_total_reconciles_with_client_time_and_waves_predict_queue_time
    server = start_logging_server(workers: 2, threads: 2)
    assert_equal 4, server.slots
    client = Timing::ConcurrentClient.new(server.port)
    Timing.in_child do # warm the JIT on the same path: 10 bursts of 40, then one 100 ms wave of 8
      10.times { |b| client.run(40.times.map { |i| exchange("warm#{b}x#{i}", 0) }, timeout: 10) }
      client.run(8.times.map { |i| exchange("warmwave#{i}", 100) }, timeout: 10, connect_first: true)
      nil
    end

    exchanges, records = wave_round(server, client, "r")

    exchanges.each do |e|
      r = records.fetch(e.tag)
      assert_nil e.error, with_log(server, "#{e.tag}: #{e.error}")
      assert_equal 200, e.status, with_log(server, "#{e.tag}: #{e.status} #{e.body}")
      r.parts.each { |part, ns| assert_operator ns, :>=, 0, with_log(server, "#{e.tag}: #{part} = #{ns} ns < 0 in #{r.line}") }
      assert_equal r.total, r.parts.values.sum, "#{e.tag}: parts #{r.parts} do not add up to the total #{r.total}"
      assert_operator e.sent_at, :<=, r.t1, "#{e.tag}: T1 #{r.t1} precedes the client's first write at #{e.sent_at}"
      seen = JSON.parse(e.body)
      assert_equal [r.queue, r.body_wait, r.t2b], seen.values_at("queue_time_ns", "body_wait_ns", "runnable_at_ns"),
                   "#{e.tag}: the app's env disagrees with #{r.line}"
    end

    ordered = records.values.sort_by(&:t2b)
    predicted = fifo_queue_times(ordered.map(&:t2b), ordered.map(&:service), slots: 4)
    actual = ordered.map(&:queue)
    worst = exchanges.max_by { |e| (e.elapsed - records.fetch(e.tag).total).abs }
    w = records.fetch(worst.tag)
    diag "client vs host total: worst #{Timing.ms((worst.elapsed - w.total).abs)} ms (#{worst.tag}: first write → T1 " \
         "#{Timing.ms(w.t1 - worst.sent_at)} ms, T6 → last byte received #{Timing.ms(worst.done_at - w.t6)} ms); " \
         "queue p50 #{Timing.ms(Timing.percentile(actual, 50))} ms (predicted #{Timing.ms(Timing.percentile(predicted, 50))}), " \
         "p95 #{Timing.ms(Timing.percentile(actual, 95))} ms (predicted #{Timing.ms(Timing.percentile(predicted, 95))}); " \
         "service median #{Timing.ms(Timing.median(ordered.map(&:service)))} ms"
    [50, 95].each do |p|
      want = Timing.percentile(predicted, p)
      got = Timing.percentile(actual, p)
      assert_in_delta want, got, 0.10 * want,
                      with_log(server, "queue p#{p}: #{Timing.ms(got)} ms, 10 waves of 4 predict #{Timing.ms(want)} ms " \
                                       "(actual #{actual.map { |q| Timing.ms(q) }}, predicted #{predicted.map { |q| Timing.ms(q) }})")
    end

    # More rounds (up to 3) while a request disagrees: this 2-vCPU machine now and then leaves the host's
    # event loop without a CPU for 1–4 ms (measured: no GC or safepoint then, and some hypervisor steal;
    # in a full suite, other tests' processes still exiting), which shows up before T1 or after T6 of
    # whichever request it hits. A wrong timing point is wrong in every round and fails all three.
    rounds = [disagreements(exchanges, records)]
    while !rounds.last.empty? && rounds.size < 3
      diag "round #{rounds.size} beyond the allowances, running round #{rounds.size + 1}:\n#{rounds.last.join("\n")}"
      rounds << disagreements(*wave_round(server, client, "again#{rounds.size}x"))
    end
    assert_empty rounds.last,
                 with_log(server, "host total vs client time beyond the allowances (completion lag, 2 ms + read lag) in #{rounds.size} rounds:\n" +
                                  rounds.each_with_index.map { |r, i| "round #{i + 1}:\n#{r.join("\n")}" }.join("\n"))
  end

  # Uploads dribbled over 2 s while slots are free: none of it is queue time, all of it is body wait. Every
  # body is complete before the request is runnable (T2b − T2): one of at most 112 KiB held in memory, a
  # larger one (both here) spooled to a file by the host, which the worker then reads at its own speed
  # (body_read, body wait too). Neither is in queue or service time.
  def test_slow_upload_is_not_charged_to_queue_time
    server = start_logging_server(workers: 1, threads: 2)
    warm_up(server, 10)
    small = Thread.new { dribble(server, "upsmall", 512 * 1024, 2.0) }
    large = Thread.new { dribble(server, "uplarge", 2 * 1024 * 1024, 2.0) }
    uploads = { "upsmall" => small.value, "uplarge" => large.value }
    records = records_for(server, uploads.keys)

    uploads.each do |tag, upload|
      r = records.fetch(tag)
      assert_equal 200, upload[:response].status, with_log(server, "#{tag}: #{upload[:response].status} #{upload[:response].body}")
      seen = JSON.parse(upload[:response].body)
      assert_equal upload[:bytes], seen["body_bytes"], "#{tag}: the app read #{seen['body_bytes']} of #{upload[:bytes]} bytes"
      # Not the 2 s of body wait. Both uploads end together and become runnable within microseconds; the
      # second's dispatch can then wait behind the first's on a loaded machine (1.3 ms once on Ruby 3.3 in a
      # fresh-clone run, with both slots free), so the bound is 5 ms, not 1.
      assert_operator r.queue, :<, 5 * MS, with_log(server, "#{tag}: queue #{Timing.ms(r.queue)} ms for an upload to a free slot (#{r.line})")
      r.parts.each { |part, ns| assert_operator ns, :>=, 0, with_log(server, "#{tag}: #{part} = #{ns} ns < 0 in #{r.line}") }
      assert_equal [r.queue, r.body_wait, r.t2b], seen.values_at("queue_time_ns", "body_wait_ns", "runnable_at_ns"),
                   "#{tag}: the app's env disagrees with #{r.line}"
      assert_operator r.service, :<, 300 * MS, with_log(server, "#{tag}: service #{Timing.ms(r.service)} ms includes the upload (#{r.line})")
      diag "#{tag}: body wait #{Timing.ms(r.body_wait)} ms, body_read #{Timing.ms(r.body_read)} ms, queue #{Timing.ms(r.queue)} ms, " \
           "service #{Timing.ms(r.service)} ms; client: upload #{Timing.ms(upload[:last_byte] - upload[:head_sent])} ms"
    end

    # The request is runnable (T2b) when its last byte has arrived, whatever its size; the worker's read of
    # the spooled body is body wait too, never queue or service.
    { "upsmall" => "512 KiB", "uplarge" => "2 MiB" }.each do |tag, size|
      r = records.fetch(tag)
      upload = uploads.fetch(tag)
      assert_in_delta upload[:last_byte] - upload[:head_sent], r.t2b - r.t2, 300 * MS,
                      with_log(server, "#{tag}: T2b - T2 #{Timing.ms(r.t2b - r.t2)} ms, but its body took " \
                                       "#{Timing.ms(upload[:last_byte] - upload[:head_sent])} ms to send (#{r.line})")
      assert_in_delta 2000 * MS, r.body_wait, 300 * MS,
                      with_log(server, "#{tag} (#{size} over 2 s): body wait #{Timing.ms(r.body_wait)} ms (#{r.line})")
    end
  end

  # Sequential requests always find a free slot: the queue time is the dispatcher's own overhead, which
  # must stay under 100 µs at p99, both in the log lines and in /stats' 10 s window. The warm-up is 2,000
  # requests because a cold JVM's request path runs interpreted, then in C1's profiling code, for its first
  # thousand or so (HotSpot's tier thresholds): after 20 warm-up requests T3 - T2b was 17-37 µs at p50 and
  # 70-371 µs at p99 (10 rounds), after 2,000 it was 7-8 µs and 34-37 µs. The warm-up is left to roll out of
  # the 10 s window first, so /stats judges exactly the 200 requests the log lines do. T2b and T3 are read
  # on one thread microseconds apart, so a p99 over 100 µs there is that thread losing its CPU in between,
  # twice in 200 requests: up to 3 rounds (each after the window has emptied again) while it does. An
  # overhead really that large fails them all.
  def test_idle_server_queue_time_p99_is_under_100_microseconds
    server = start_logging_server(workers: 1, threads: 2)
    warm_up(server, 2000)
    rounds = []
    3.times do |round|
      sleep 11
      tags = 200.times.map do |i|
        tag = "idle#{round}x#{i}"
        response = server.request("GET", "/timing/#{tag}")
        assert_equal 200, response.status, with_log(server, "#{tag}: #{response.status} #{response.body}")
        tag
      end
      queues = records_for(server, tags).values.map(&:queue)
      window = settled_queue_stats(server) { |q| q.dig("windows", "10s", "count").to_i >= 200 }.fetch("windows").fetch("10s")
      rounds << { p99: Timing.percentile(queues, 99), window: window }
      diag "idle queue, round #{round + 1}: p50 #{Timing.percentile(queues, 50) / 1000.0} µs, p99 " \
           "#{rounds.last[:p99] / 1000.0} µs, max #{queues.max / 1000.0} µs; " \
           "/stats 10s: #{window.slice('count', 'queue_p50_ms', 'queue_p99_ms', 'queue_max_ms')}"
      break if rounds.last[:p99] < 100 * US && window.fetch("queue_p99_ms") < 0.1
    end

    last = rounds.last
    assert_operator last[:p99], :<, 100 * US,
                    with_log(server, "log lines: queue p99 #{rounds.map { |r| r[:p99] / 1000.0 }} µs in #{rounds.size} rounds on an idle server")
    assert_equal 200, last[:window].fetch("count"), "/stats 10s window should count exactly the 200 sequential requests"
    assert_operator last[:window].fetch("queue_p99_ms"), :<, 0.1,
                    "/stats 10s queue_p99_ms = #{rounds.map { |r| r[:window]['queue_p99_ms'] }} in #{rounds.size} rounds on an idle server"
  end

  private

  # 40 requests of 100 ms, one per connection (opened beforehand), written 1 ms apart from a child process;
  # returns the exchanges and the host's records by tag.
  def wave_round(server, client, prefix)
    exchanges = Timing.in_child do
      start = Timing.now_ns + 150 * MS # after connect_first's 100 ms
      client.run(40.times.map { |i| exchange("#{prefix}#{i}", 100, send_at: start + i * MS) }, timeout: 20, connect_first: true)
    end
    [exchanges, records_for(server, exchanges.map(&:tag))]
  end

  # Bytes may wait in the kernel before the host's event loop reads them, and no server can see that wait
  # (it is before T1). On this 2-vCPU VM, with 4 Ruby worker threads and the client sharing the CPUs, it
  # reached 5–15 ms in whole rounds where T6 and the client's last byte agreed within 0.2 ms (2026-11-30).
  # So the client's time may exceed the host total by that much more. A T1
  # taken at any later point of a request's path (parsed, queued, dispatched) would still be off by far
  # more, for every queued request.
  READ_LAG_ALLOWANCE = 15 * MS
  # The other way round, the host learns that a response's last write finished (T6) when its event loop
  # reaps the write's completion, which on a loaded machine can come after the client already has the
  # bytes: a fresh-clone run saw the host total exceed the client's time by 2.3-5.5 ms in all 3 rounds.
  COMPLETION_LAG_ALLOWANCE = 6 * MS

  # The requests whose host total (T6 − T1) differs from the client's time by more than 2 ms (plus
  # READ_LAG_ALLOWANCE when the client's is the longer), saying where: before T1 (first write → T1: the
  # bytes waited for the host to read them) or after T6 (T6 → the last byte reached the client: T6 was
  # taken late, or early).
  def disagreements(exchanges, records)
    exchanges.filter_map do |e|
      r = records.fetch(e.tag)
      difference = e.elapsed - r.total
      next if difference >= -COMPLETION_LAG_ALLOWANCE && difference <= 2 * MS + READ_LAG_ALLOWANCE

      "#{e.tag}: client #{Timing.ms(e.elapsed)} ms, host #{Timing.ms(r.total)} ms " \
        "(first write → T1 #{Timing.ms(r.t1 - e.sent_at)} ms, T6 → last byte received #{Timing.ms(e.done_at - r.t6)} ms)"
    end
  end

  def exchange(tag, ms, send_at: nil)
    Timing::Exchange.new(tag: tag, send_at: send_at, bytes: RawHttp.request("GET", "/timing/#{tag}?ms=#{ms}"))
  end

  # Queue times of a FIFO with `slots` servers, all free at first, fed requests arriving at `arrivals` (ns,
  # ascending) that each hold a slot for their `holds` (ns).
  def fifo_queue_times(arrivals, holds, slots:)
    free = Array.new(slots, 0)
    arrivals.zip(holds).map do |arrival, hold|
      slot = free.each_index.min_by { |i| free[i] }
      start = [arrival, free[slot]].max
      free[slot] = start + hold
      start - arrival
    end
  end

  # POSTs `bytes` of body to /timing/TAG, the head at once and the body in 16 KiB pieces spread evenly over
  # `seconds`. Returns the response and client times (ns): head sent, last byte sent.
  def dribble(server, tag, bytes, seconds)
    piece = 16 * 1024
    pieces = bytes / piece
    connection = server.connect(timeout: 5)
    head_sent = Timing.now_ns
    connection.write(RawHttp.request("POST", "/timing/#{tag}", { "Content-Length" => bytes.to_s,
                                                                 "Content-Type" => "application/octet-stream" }))
    (1..pieces).each do |i|
      due = head_sent + (i * seconds * 1e9 / pieces).round
      pause = (due - Timing.now_ns) / 1e9
      sleep pause if pause.positive?
      connection.write("x" * piece)
    end
    last_byte = Timing.now_ns
    { response: connection.read_response(timeout: 10), bytes: bytes, head_sent: head_sent, last_byte: last_byte }
  ensure
    connection&.close
  end
end
