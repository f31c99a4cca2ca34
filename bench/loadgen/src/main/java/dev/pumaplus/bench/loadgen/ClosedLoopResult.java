// What a round benchmark's closed-loop client counted over one run at full speed: Wrk over HTTP/1.1, H2load
// over HTTP/2 cleartext. The figures a closed-loop cell's row is made of (RoundRunner, CellRun).
package dev.pumaplus.bench.loadgen;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

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

  /** The latency percentiles, µs; NaN where the client gave none. */
  double p50Us();

  double p95Us();

  double p99Us();

  double p999Us();

  /** The latency percentiles, ms. */
  default double p50Ms() {
    return p50Us() / 1e3;
  }

  default double p95Ms() {
    return p95Us() / 1e3;
  }

  default double p99Ms() {
    return p99Us() / 1e3;
  }

  default double p999Ms() {
    return p999Us() / 1e3;
  }

  /**
   * Runs a client's command to completion, its whole output to {@code log}, and returns that output;
   * {@code name} in the errors: a run past {@code limitNs} is killed, a non-zero exit is an error.
   */
  static String runClient(String name, List<String> argv, long limitNs, Path log) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(log.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
    if (!process.waitFor(limitNs, TimeUnit.NANOSECONDS)) {
      process.destroyForcibly();
      throw new IOException(name + " did not finish within " + limitNs / 1_000_000_000L + " s (" + log + ")");
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    if (process.exitValue() != 0) throw new IOException(name + " exited with " + process.exitValue() + ":\n" + output);
    return output;
  }
}
