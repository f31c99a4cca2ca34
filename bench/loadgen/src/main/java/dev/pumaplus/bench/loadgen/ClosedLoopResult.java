// What a round benchmark's closed-loop client counted over one run at full speed: Wrk over HTTP/1.1, H2load
// over HTTP/2 cleartext. The figures a closed-loop cell's row is made of (RoundRunner, CellRun).
package dev.pumaplus.bench.loadgen;

/** Immutable. Latencies are service times as a connection saw them (closed loop), not a user's wait. */
interface ClosedLoopResult {
  /** Responses received, whatever their status: the divisor of CPU per request. */
  long answered();

  /** Requests without a 2xx/3xx answer: socket and stream errors, timeouts, other statuses. */
  long errors();

  /** Requests per second over the client's own measured duration; NaN when it measured none. */
  double rps();

  /** The client's own measured duration, µs. */
  long durationUs();

  /** The latency percentiles, ms; NaN where the client gave none. */
  double p50Ms();

  double p95Ms();

  double p99Ms();

  double p999Ms();
}
