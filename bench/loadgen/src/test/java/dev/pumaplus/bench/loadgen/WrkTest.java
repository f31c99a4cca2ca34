// Wrk: the harness reads wrk's counters from its done() hook's line (fixed text: the output of a real
// Debian wrk 4.1.0 run), and asks for a new connection per request with a Connection: close header.
package dev.pumaplus.bench.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(10)
class WrkTest {
  private static final String OUTPUT = """
      Running 2s test @ http://127.0.0.1:18431/hello
        1 threads and 16 connections
        Thread Stats   Avg      Stdev     Max   +/- Stdev
          Latency    22.05ms   27.84ms 146.84ms   88.28%
          Req/Sec     1.14k   623.48     2.39k    72.22%
        2309 requests in 2.08s, 193.92KB read
        Socket errors: connect 0, read 3, write 1, timeout 2
        Non-2xx or 3xx responses: 4
      Requests/sec:   1108.33
      Transfer/sec:     93.08KB
      wrk-summary requests=2309 duration_us=2083319 bytes=198574 connect=0 read=3 write=1 status=4 timeout=2 p50_us=12050 p95_us=98011 p99_us=133949 p999_us=146001
      """;

  @TempDir
  Path dir;

  @Test
  void countersComeFromTheDoneHooksLineAndRpsIsRequestsOverWrksOwnDuration() {
    Wrk.Result r = Wrk.parse(OUTPUT);
    assertEquals(2309, r.requests());
    assertEquals(2_083_319, r.durationUs());
    assertEquals(198_574, r.bytes());
    assertEquals(3 + 1 + 4 + 2, r.errors(), "socket errors and non-2xx/3xx responses");
    assertEquals(2, r.timeouts());
    assertEquals(12_050, r.p50Us());
    assertEquals(98_011, r.p95Us());
    assertEquals(133_949, r.p99Us());
    assertEquals(146_001, r.p999Us());
    assertEquals(1108.33, r.rps(), 0.01, "the same as wrk's own Requests/sec");
  }

  @Test
  void outputWithoutTheHooksLineOrWithAMissingCounterIsAnError() {
    assertThrows(IllegalArgumentException.class, () -> Wrk.parse("Running 2s test @ http://127.0.0.1:1/\nRequests/sec: 10\n"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Wrk.parse("wrk-summary requests=1 duration_us=2 bytes=3 connect=0 read=0 write=0 status=0 timeout=0 p50_us=1 p95_us=1\n"));
    assertTrue(e.getMessage().contains("p99_us"), e.getMessage());
  }

  @Test
  void aNewConnectionPerRequestIsAskedForWithConnectionCloseAndDurationsAreWholeSeconds() throws Exception {
    Path script = Wrk.installScript(dir);
    assertTrue(Files.readString(script).contains("wrk-summary requests="), "the hook is copied out of the jar");
    Wrk wrk = new Wrk(16, 1, Format.parseDuration("5s"), script);
    URI url = URI.create("http://127.0.0.1:9/hello");
    assertEquals(List.of("wrk", "-t", "1", "-c", "16", "-d", "15s", "--timeout", "5s", "-s", script.toString(), "-H", "Connection: close",
        url.toString()), wrk.argv(url, Format.parseDuration("15s"), true));
    assertEquals(List.of("wrk", "-t", "1", "-c", "16", "-d", "1s", "--timeout", "5s", "-s", script.toString(), url.toString()),
        wrk.argv(url, Format.parseDuration("300ms"), false));
  }
}
