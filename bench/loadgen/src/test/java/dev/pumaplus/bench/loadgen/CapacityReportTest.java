// CapacityReport on fixed runs: one row per server and connection mode with medians, the ratio of each
// puma-plus configuration to the puma of the same configuration, and the null server as the ceiling.
package dev.pumaplus.bench.loadgen;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(10)
class CapacityReportTest {
  @TempDir
  Path out;

  @Test
  void theTableHoldsMediansAndTheRatiosPairPumaPlusWithPumaOfTheSameConfiguration() throws Exception {
    Path file = out.resolve("cap.scenario");
    Files.writeString(file, """
        name cap
        closed-loop wrk 16 1
        connection keep-alive
        repeat 3
        server puma-plus:w1 puma-plus x
        server puma:w1 puma x
        server null null x
        """);
    CapacityScenario scenario = CapacityScenario.parse(file);
    List<CapacityRunner.Run> runs = new ArrayList<>();
    for (int rep = 1; rep <= 3; rep++) {
      // puma-plus: 10,000 requests/s, 100 ticks (1 s of CPU) per second: 100 µs each, host 60, workers 40;
      // the third run is an outlier the median must ignore
      long plusRequests = rep == 3 ? 1_000 : 150_000;
      runs.add(run(scenario.servers().get(0), rep, plusRequests, Map.of("host", 900L, "shepherd", 0L, "workers", 600L), 250_000, 270_000));
      runs.add(run(scenario.servers().get(1), rep, 300_000, Map.of("master", 0L, "workers", 1_500L), 50_000, 54_000));
      runs.add(run(scenario.servers().get(2), rep, 600_000, Map.of("server", 1_400L), 40_000, 45_000));
    }
    CapacityReport.write(scenario, runs, out, "1");
    String md = Files.readString(out.resolve("summary.md"));
    assertTrue(md.contains("| puma-plus:w1 | keep-alive | 10,000 | 0 | 50% | 0.000 | 100.0 µs | host 60.0 µs (JIT 1.0 µs), shepherd 0.0 µs, workers 40.0 µs | 244 MB | 264 MB |"), md);
    assertTrue(md.contains("| puma:w1 | keep-alive | 20,000 | 0 | 50% | 0.000 | 50.0 µs | master 0.0 µs, workers 50.0 µs | 49 MB | 53 MB |"), md);
    assertTrue(md.contains("| w1 | keep-alive | 0.50× | 2.00× | 5.00× | 5.00× | 60% |"), md);
    assertTrue(md.contains("| puma-plus:w1 | keep-alive | host 234 → 254 MB, shepherd 0 → 0 MB, workers 10 → 10 MB |"), md);
    assertTrue(md.contains("wrk against the null server (a Netty server that does nothing): 40,000 rps keep-alive"), md);
  }

  private static CapacityRunner.Run run(Scenario.ServerSpec server, int rep, long requests, Map<String, Long> ticks, long idleKb, long loadedKb) {
    Map<String, Long> ordered = new LinkedHashMap<>();
    for (String role : CapacityRunner.roles(server.kind())) ordered.put(role, ticks.get(role));
    long tree = ordered.values().stream().mapToLong(Long::longValue).sum();
    Wrk.Result wrk = new Wrk.Result(requests, 15_000_000, requests * 100, 0, 0, 0, 0, 0, 1_000, 5_000);
    Map<String, Long> idleByRole = new LinkedHashMap<>();
    Map<String, Long> loadedByRole = new LinkedHashMap<>();
    List<String> roles = CapacityRunner.roles(server.kind());
    for (String role : roles) {
      // the root holds all but 10 MB of the tree, the last role (the workers) the 10 MB
      boolean root = role.equals(roles.get(0));
      idleByRole.put(role, root ? idleKb - 10_240 : role.equals(roles.get(roles.size() - 1)) ? 10_240 : 0);
      loadedByRole.put(role, root ? loadedKb - 10_240 : role.equals(roles.get(roles.size() - 1)) ? 10_240 : 0);
    }
    // A JVM root's compiler threads used a sixth of its ticks: 15 ticks per 150,000 requests is 1 µs each.
    Map<String, Long> jit = new LinkedHashMap<>();
    for (String role : roles) jit.put(role, role.equals("host") || role.equals("server") ? requests / 10_000 : 0L);
    return new CapacityRunner.Run(server, CapacityScenario.Connection.KEEP_ALIVE, rep, wrk, tree, ordered, jit, idleKb, loadedKb, idleByRole,
        loadedByRole, 3, 16, 750, "1 1 1", "1 1 1");
  }
}
