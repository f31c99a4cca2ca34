// The HTTP/2 closed-loop client of the round benchmarks (their h2 warm-ups and closed-loop h2 cells): nghttp2's
// h2load (Debian's nghttp2-client), cleartext with prior knowledge, one stream at a time on each connection,
// run as a child process like Wrk (so it inherits the generator's CPU). Counts and req/s come from its
// summary; the latency percentiles from its per-request log (--log-file), as its summary gives only the
// min, max, mean and sd of the request time.
package dev.pumaplus.bench.loadgen;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;

/**
 * Immutable settings: {@code connections} clients (one connection each) on {@code threads} threads, as
 * wrk's; {@code timeoutNs}: h2load has no per-request timeout, so a connection that sees nothing for this
 * long is dropped (-N) and its open request counted as errored. {@link #run} blocks the caller's thread.
 */
record H2load(int connections, int threads, long timeoutNs) {
  private static final Pattern FINISHED = Pattern.compile("^finished in ([\\d.]+)(us|ms|s), ([\\d.]+) req/s", Pattern.MULTILINE);
  private static final Pattern REQUESTS = Pattern.compile("^requests: (\\d+) total, (\\d+) started, (\\d+) done, (\\d+) succeeded, "
      + "(\\d+) failed, (\\d+) errored, (\\d+) timeout", Pattern.MULTILINE);

  /**
   * What one run counted. {@code done}: streams that ended, answered or not; {@code succeeded}: answered
   * 2xx/3xx; {@code failed}: the rest of those done (errored, or another status); {@code errored}: ended
   * without an answer (reset, connection lost, the -N timeout), of which {@code timeouts} by a timeout.
   * {@code rps}: h2load's own req/s (answered requests over the -D duration). Latencies in µs from the
   * per-request log, over the answered requests (service time: from the stream's start to its end); NaN with
   * no log line.
   */
  record Result(long done, long succeeded, long failed, long errored, long timeouts, double rps, long durationUs, double p50Us,
      double p95Us, double p99Us, double p999Us) implements ClosedLoopResult {
    @Override
    public long answered() {
      return done - errored;
    }

    @Override
    public long errors() {
      return failed;
    }

  }

  /** The command line for one run of {@code durationNs} against {@code url}, writing its per-request log to {@code requestLog}. */
  List<String> argv(URI url, long durationNs, Path requestLog) {
    return List.of("h2load", "-c", Integer.toString(connections), "-t", Integer.toString(threads), "-m", "1",
        "-D", Format.wholeSeconds(durationNs), "-N", Format.wholeSeconds(timeoutNs), "--log-file=" + requestLog, url.toString());
  }

  /**
   * Runs h2load to completion; its output goes to {@code log}. Its per-request log is read and deleted (at
   * full speed it is a few MB a cell). A run that ended no request at all (nothing to connect to) is an error.
   */
  Result run(URI url, long durationNs, Path log) throws IOException, InterruptedException {
    Path requestLog = log.resolveSibling(log.getFileName() + ".requests.tsv");
    try {
      long limitNs = durationNs + timeoutNs + TimeUnit.SECONDS.toNanos(30);
      String output = ClosedLoopResult.runClient("h2load", argv(url, durationNs, requestLog), limitNs, log);
      Result result;
      try (Stream<String> lines = Files.exists(requestLog) ? Files.lines(requestLog, StandardCharsets.US_ASCII) : Stream.empty()) {
        result = parse(output, latenciesUs(lines));
      } catch (IllegalArgumentException | UncheckedIOException e) {
        throw new IOException("h2load's output (" + log + "): " + e.getMessage(), e);
      }
      if (result.done() == 0) throw new IOException("h2load ended no request:\n" + output);
      return result;
    } finally {
      Files.deleteIfExists(requestLog);
    }
  }

  /**
   * The request times of the answered requests of a per-request log (--log-file: start µs since the epoch,
   * status, µs to the end of the response; status -1 for a stream that failed), in µs.
   */
  static Histogram latenciesUs(Stream<String> lines) {
    Histogram h = new Histogram(3);
    lines.forEach(line -> {
      if (line.isBlank()) return;
      String[] f = line.split("\t");
      if (f.length < 3) throw new IllegalArgumentException("not start<TAB>status<TAB>time: '" + line + "'");
      if (Integer.parseInt(f[1].trim()) < 0) return;
      h.recordValue(Math.max(1, Long.parseLong(f[2].trim())));
    });
    return h;
  }

  /** Reads h2load's summary ("finished in", "requests:") and takes the percentiles from {@code latencyUs}. */
  static Result parse(String output, Histogram latencyUs) {
    Matcher finished = FINISHED.matcher(output);
    Matcher requests = REQUESTS.matcher(output);
    if (!finished.find() || !requests.find()) {
      throw new IllegalArgumentException("no 'finished in' and 'requests:' lines in h2load's output:\n" + output);
    }
    double amount = Double.parseDouble(finished.group(1));
    long durationUs = Math.round(amount * switch (finished.group(2)) {
      case "s" -> 1e6;
      case "ms" -> 1e3;
      default -> 1;
    });
    return new Result(Long.parseLong(requests.group(3)), Long.parseLong(requests.group(4)), Long.parseLong(requests.group(5)),
        Long.parseLong(requests.group(6)), Long.parseLong(requests.group(7)), Double.parseDouble(finished.group(3)), durationUs,
        percentile(latencyUs, 50), percentile(latencyUs, 95), percentile(latencyUs, 99), percentile(latencyUs, 99.9));
  }

  private static double percentile(Histogram h, double p) {
    return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(p);
  }
}
