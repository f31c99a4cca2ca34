// The slow-dependency summary reads a run as the acceptance line does: the overload step is the first above
// the dependency's capacity, "settled" is when the limit entered 15–30 (K = 20) and stayed to the step's end,
// goodput is counted after the first 10 s of the step, 503s are shed and not timeouts; and a scenario with a
// dependency gets the table and the timeline columns, one without keeps its report as it was.
package dev.pumaplus.bench.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(10)
class DependencyStatsTest {
  private static final long S = 1_000_000_000L;
  private static final long ORIGIN = 1_000 * S; // any System.nanoTime value

  @TempDir
  Path out;

  /** 250 rps for 10 s, 1000 for 30 s, 250 for 10 s against 20 calls at once of 40 ms (500 calls/s). */
  private Scenario scenario(boolean dependency) throws Exception {
    Path file = out.resolve("dep.scenario");
    Files.writeString(file, "name dep\npath /dep\n" + (dependency ? "dependency 20 40ms\n" : "")
        + "step 10s 250\nstep 30s 1000\nstep 10s 250\nserver plus puma-plus unused\n");
    return Scenario.parse(file);
  }

  private static RequestRecord record(int seq, double intendedS, double latencyS, Outcome outcome, int status) {
    RequestRecord r = new RequestRecord(seq, RequestRecord.Kind.LOAD, Math.round(intendedS * S));
    r.sentNs = r.intendedNs;
    r.doneNs = r.intendedNs + Math.round(latencyS * S);
    r.outcome = outcome;
    r.status = status;
    return r;
  }

  /**
   * 450 OK answers a second from 0 to 50 s, each 100 ms, plus 3 requests shed with 503, 2 other 500s and 1
   * timeout; the limit at 128 until 14 s, then 25 (one second at 20 at 12 s does not count: it left the band
   * again), except {@code limitAt39} in the step's last second; the dependency completing 500 calls a second.
   */
  private static Timeline timeline(Scenario scenario, List<RequestRecord> load, int limitAt39) {
    int seq = 0;
    for (int second = 0; second < 50; second++) {
      for (int i = 0; i < 450; i++) load.add(record(seq++, second + i / 450.0, 0.1, Outcome.OK, 200));
    }
    for (int i = 0; i < 3; i++) load.add(record(seq++, 20, 2.5, Outcome.HTTP_ERROR, 503));
    for (int i = 0; i < 2; i++) load.add(record(seq++, 21, 0.01, Outcome.HTTP_ERROR, 500));
    load.add(record(seq++, 22, 5, Outcome.TIMEOUT, 0));
    List<ServerSampler.QueueSample> queue = new ArrayList<>();
    List<ServerSampler.DependencySample> dependency = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      long at = ORIGIN + i * S + S / 2;
      int limit = i == 12 ? 20 : i == 39 ? limitAt39 : i < 14 ? 128 : 25;
      queue.add(new ServerSampler.QueueSample(at, 1, 0, 128, 0, limit));
      dependency.add(new ServerSampler.DependencySample(at, 30, 500L * i));
    }
    LoadGenerator.Result result = new LoadGenerator.Result(ORIGIN, 50 * S, load, List.of(), List.of(), true);
    return Timeline.build(scenario.schedule(), result, List.of(), queue, true, dependency);
  }

  @Test
  void theLimitSettlesWhenItEntersTheBandForGoodAndGoodputIsCountedAfterTheFirstTenSeconds() throws Exception {
    Scenario scenario = scenario(true);
    List<RequestRecord> load = new ArrayList<>();
    Timeline timeline = timeline(scenario, load, 25);
    LoadGenerator.Result result = new LoadGenerator.Result(ORIGIN, 50 * S, load, List.of(), List.of(), true);
    DependencyStats d = DependencyStats.of(scenario.dependency(), scenario.schedule(), result, timeline, 42);

    assertEquals(500, d.capacityRps(), 1e-9);
    assertEquals(2, d.overloadStep());
    assertEquals(10, d.stepStartS(), 1e-9);
    assertEquals(40, d.stepEndS(), 1e-9);
    assertEquals(15, d.bandLow());
    assertEquals(30, d.bandHigh());
    assertEquals(5, d.settleS(), 1e-9, "in the band from the sample of second 14 (t = 15 s) on");
    assertEquals("5 s (25–25)", d.settleText());
    assertEquals(450, d.goodputRps(), 1);
    assertEquals(500, d.dependencyRps(), 1e-9);
    assertEquals(100, d.p99OkMs(), 1);
    assertEquals(3, d.shed503());
    assertEquals(2, d.otherHttp());
    assertEquals(1, d.timeouts());
    assertEquals(0, d.connectionErrors());
    assertEquals(42, d.peakInFlight());
    assertTrue(d.limitTrace().startsWith("128×12 20 128 25×"), d.limitTrace());
  }

  @Test
  void aLimitThatLeavesTheBandBeforeTheStepEndsNeverSettledAndAServerWithoutOneShowsNA() throws Exception {
    Scenario scenario = scenario(true);
    List<RequestRecord> load = new ArrayList<>();
    Timeline timeline = timeline(scenario, load, 40);
    DependencyStats left = DependencyStats.of(scenario.dependency(), scenario.schedule(),
        new LoadGenerator.Result(ORIGIN, 50 * S, load, List.of(), List.of(), true), timeline, 0);
    assertTrue(Double.isNaN(left.settleS()));
    assertEquals("never", left.settleText());
    DependencyStats none = new DependencyStats(500, 2, 10, 40, new int[] {-1, -1}, Double.NaN, 15, 30, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0);
    assertFalse(none.hasLimit());
    assertEquals("n/a", none.settleText());
    assertEquals("n/a", none.limitTrace());
  }

  @Test
  void aDependencyScenariosReportHasTheTableAndTheColumnsAndOneWithoutHasNeither() throws Exception {
    for (boolean dependency : new boolean[] {true, false}) {
      Scenario scenario = scenario(dependency);
      List<RequestRecord> load = new ArrayList<>();
      Timeline timeline = timeline(scenario, load, 25);
      LoadGenerator.Result result = new LoadGenerator.Result(ORIGIN, 50 * S, load, List.of(), List.of(), true);
      RunStats stats = RunStats.of(scenario.schedule(), result, scenario.sloNs());
      DependencyStats d = dependency ? DependencyStats.of(scenario.dependency(), scenario.schedule(), result, timeline, 42) : null;
      Path dir = Files.createDirectories(out.resolve(dependency ? "with" : "without"));
      Report.write(scenario, List.of(new ScenarioRunner.Run("plus", 1, stats, List.of(stats, stats, stats), 1, 2, 1, 50, timeline,
          "0 0 0", "0 0 0", d)), List.of(), dir, "1");
      String summary = Files.readString(dir.resolve("summary.md"));
      String text = Files.readString(dir.resolve("timeline.txt"));
      assertEquals(dependency, summary.contains("## The slow dependency"), summary);
      assertEquals(dependency, summary.contains("| plus | 1 | 5 s (25–25) | 450 | 0.90 | 500 | 100ms | 3 | 2 | 1 | 0 | 42 |"), summary);
      assertEquals(dependency, text.lines().skip(1).findFirst().orElseThrow().endsWith("limit  dep_infl dep_calls"), text);
      assertEquals(dependency, text.lines().anyMatch(l -> l.trim().startsWith("20s ") && l.endsWith("25        30       500")), text);
    }
  }
}
