// The HTTP/1.1 closed-loop client of the round benchmarks (`bench/run capacity`, and the warm-ups of `bench/run
// lowrate`): Debian's wrk, run as a child process (so it inherits the generator's CPU), with a done() hook
// (resources/wrk-summary.lua) that prints its counters on one line.
package dev.pumaplus.bench.loadgen;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Immutable settings; {@link #run} blocks the caller's thread for the run's duration. */
record Wrk(int connections, int threads, long timeoutNs, Path script) {
  private static final String PREFIX = "wrk-summary ";

  /**
   * What one wrk run counted. {@code durationUs}: wrk's own measured time; errors: connect, read, write,
   * timeout (socket errors) and status (non-2xx/3xx responses); latencies in µs, closed-loop (service time
   * as a connection saw it, not a user's wait).
   */
  record Result(long requests, long durationUs, long bytes, long connectErrors, long readErrors, long writeErrors,
      long statusErrors, long timeouts, double p50Us, double p95Us, double p99Us, double p999Us) implements ClosedLoopResult {
    /** wrk's requests: every response, whatever its status. */
    @Override
    public long answered() {
      return requests;
    }

    @Override
    public double rps() {
      return durationUs == 0 ? Double.NaN : requests * 1e6 / durationUs;
    }

    @Override
    public long errors() {
      return connectErrors + readErrors + writeErrors + statusErrors + timeouts;
    }

  }

  /** Copies the done() hook out of the jar into {@code dir}, where wrk can load it. */
  static Path installScript(Path dir) throws IOException {
    Path script = dir.resolve("wrk-summary.lua");
    try (InputStream in = Wrk.class.getResourceAsStream("/wrk-summary.lua")) {
      if (in == null) throw new IOException("wrk-summary.lua is missing from the harness jar");
      Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
    }
    return script;
  }

  /** The command line for one run of {@code durationNs} against {@code url}; {@code close}: a new connection per request. */
  List<String> argv(URI url, long durationNs, boolean close) {
    List<String> argv = new ArrayList<>(List.of("wrk", "-t", Integer.toString(threads), "-c", Integer.toString(connections),
        "-d", Format.wholeSeconds(durationNs), "--timeout", Format.wholeSeconds(timeoutNs), "-s", script.toString()));
    if (close) argv.addAll(List.of("-H", "Connection: close"));
    argv.add(url.toString());
    return argv;
  }

  /** Runs wrk to completion; its whole output goes to {@code log}. */
  Result run(URI url, long durationNs, boolean close, Path log) throws IOException, InterruptedException {
    long limitNs = durationNs + timeoutNs + TimeUnit.SECONDS.toNanos(30);
    return parse(ClosedLoopResult.runClient("wrk", argv(url, durationNs, close), limitNs, log));
  }

  /** Reads the done() hook's line out of wrk's output. */
  static Result parse(String output) {
    String line = output.lines().filter(l -> l.startsWith(PREFIX)).reduce((a, b) -> b)
        .orElseThrow(() -> new IllegalArgumentException("no '" + PREFIX.trim() + "' line in wrk's output:\n" + output));
    Map<String, Long> values = new HashMap<>();
    for (String pair : line.substring(PREFIX.length()).trim().split("\\s+")) {
      int eq = pair.indexOf('=');
      if (eq < 1) throw new IllegalArgumentException("not key=value: '" + pair + "' in: " + line);
      values.put(pair.substring(0, eq), Long.parseLong(pair.substring(eq + 1)));
    }
    return new Result(get(values, "requests", line), get(values, "duration_us", line), get(values, "bytes", line),
        get(values, "connect", line), get(values, "read", line), get(values, "write", line), get(values, "status", line),
        get(values, "timeout", line), get(values, "p50_us", line), get(values, "p95_us", line), get(values, "p99_us", line),
        get(values, "p999_us", line));
  }

  private static long get(Map<String, Long> values, String key, String line) {
    Long v = values.get(key);
    if (v == null) throw new IllegalArgumentException("no " + key + "= in: " + line);
    return v;
  }
}
