-- wrk's done() hook for the closed-loop runs of the round benchmarks (`bench/run capacity`, the warm-ups of
-- `bench/run lowrate`; Wrk.java): prints one machine-readable line after wrk's own report, so the harness
-- reads counters wrk computed rather than its human-formatted text.
-- Counters are integers; duration and latencies in microseconds.
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "wrk-summary requests=%d duration_us=%d bytes=%d connect=%d read=%d write=%d status=%d timeout=%d p50_us=%d p95_us=%d p99_us=%d p999_us=%d\n",
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(95), latency:percentile(99), latency:percentile(99.9)))
end
