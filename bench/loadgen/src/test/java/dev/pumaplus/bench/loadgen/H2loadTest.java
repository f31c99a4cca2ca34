// H2load: the harness reads h2load's counts and req/s from its summary (fixed text: the output of a real Debian
// h2load 1.52.0 run against the null server) and the latency percentiles from its per-request log, and asks
// for one stream at a time per connection, like wrk's one request at a time.
package dev.pumaplus.bench.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class H2loadTest {
  private static final String OUTPUT = """
      starting benchmark...
      spawning thread #0: 16 total client(s). Timing-based test with 0s of warm-up time and 2s of main duration for measurements.
      Warm-up started for thread #0.
      progress: 6% of clients started
      progress: 100% of clients started
      Warm-up phase is over for thread #0.
      Main benchmark duration is started for thread #0.
      Application protocol: h2c
      Main benchmark duration is over for thread #0. Stopping all clients.
      Stopped all clients for thread #0

      finished in 2.00s, 3879.50 req/s, 87.46KB/s
      requests: 7759 total, 7775 started, 7759 done, 7759 succeeded, 0 failed, 0 errored, 0 timeout
      status codes: 7759 2xx, 0 3xx, 0 4xx, 0 5xx
      traffic: 174.92KB (179113) total, 15.33KB (15694) headers (space savings 93.68%), 22.73KB (23277) data
                           min         max         mean         sd        +/- sd
      time for request:       83us    464.25ms      4.12ms     17.14ms    99.76%
      time for connect:       49us       148us       100us        30us    56.25%
      time to 1st byte:   305.82ms    464.42ms    369.94ms     51.07ms    62.50%
      req/s           :     237.99      246.97      242.45        3.12    50.00%
      """;

  @Test
  void countsAndRateComeFromTheSummaryAndPercentilesFromThePerRequestLog() {
    List<String> log = new ArrayList<>();
    for (int i = 1; i <= 1000; i++) log.add("1796409555813906\t200\t" + i * 10); // 10 µs to 10 ms
    H2load.Result r = H2load.parse(OUTPUT, H2load.latenciesUs(log.stream()));
    assertEquals(7759, r.done());
    assertEquals(7759, r.answered());
    assertEquals(0, r.errors());
    assertEquals(3879.50, r.rps(), 0.001, "h2load's own req/s");
    assertEquals(2_000_000, r.durationUs());
    assertEquals(5.0, r.p50Ms(), 0.01);
    assertEquals(9.5, r.p95Ms(), 0.01);
    assertEquals(9.9, r.p99Ms(), 0.01);
    assertEquals(9.99, r.p999Ms(), 0.01);
  }

  @Test
  void aStreamWithoutAnAnswerIsAnErrorAndNotAResponseAndHasNoLatency() {
    // the same summary with 12 streams ended without an answer (3 of them by the -N timeout) and 5 answered 503
    String output = OUTPUT.replace("7759 done, 7759 succeeded, 0 failed, 0 errored, 0 timeout",
        "7759 done, 7742 succeeded, 17 failed, 12 errored, 3 timeout");
    Histogram latency = H2load.latenciesUs(Stream.of("1796409555813906\t200\t400", "1796409555813907\t-1\t5000000", "1796409555813908\t503\t600"));
    H2load.Result r = H2load.parse(output, latency);
    assertEquals(7759 - 12, r.answered(), "a 503 is an answer (it costs the server a request); a reset stream is not");
    assertEquals(17, r.errors(), "not 2xx/3xx: the 12 unanswered and the 5 other statuses");
    assertEquals(2, latency.getTotalCount(), "a failed stream's time is when h2load gave up, not a service time");
    assertEquals(0.6, r.p99Ms(), 0.001);
  }

  @Test
  void withoutALogLineThereAreNoPercentilesAndWithoutTheSummaryThereIsNoResult() {
    H2load.Result r = H2load.parse(OUTPUT, H2load.latenciesUs(Stream.empty()));
    assertTrue(Double.isNaN(r.p50Ms()) && Double.isNaN(r.p99Ms()), "no invented numbers");
    assertEquals(3879.50, r.rps(), 0.001);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> H2load.parse("starting benchmark...\n", new Histogram(3)));
    assertTrue(e.getMessage().contains("finished in"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> H2load.latenciesUs(Stream.of("1796409555813906 200")));
  }

  @Test
  void oneStreamAtATimePerConnectionForWholeSecondsWithTheTimeoutAsTheInactivityLimit() {
    H2load h2load = new H2load(16, 1, Format.parseDuration("5s"));
    URI url = URI.create("http://127.0.0.1:9/hello");
    Path log = Path.of("/tmp/x.h2load.txt.requests.tsv");
    assertEquals(List.of("h2load", "-c", "16", "-t", "1", "-m", "1", "-D", "15s", "-N", "5s", "--log-file=" + log, url.toString()),
        h2load.argv(url, Format.parseDuration("15s"), log));
    assertEquals("1s", h2load.argv(url, Format.parseDuration("300ms"), log).get(8));
  }
}
