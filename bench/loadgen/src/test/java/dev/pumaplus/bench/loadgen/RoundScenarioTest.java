// bench/scenarios/capacity.scenario as a round benchmark: its cells, warm-ups and servers (puma-plus, puma 5.6
// and puma 8 with the same workers x threads, the null server), and the quick-run filters.
package dev.pumaplus.bench.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(10)
class RoundScenarioTest {
  private static final Path SCENARIOS = Path.of("..", "scenarios");
  private static final RoundScenario.Connection KEEP_ALIVE = RoundScenario.Connection.KEEP_ALIVE;
  private static final RoundScenario.Connection NEW = RoundScenario.Connection.NEW;

  @TempDir
  Path dir;

  @Test
  void capacityIsTheClosedLoopInBothModesWithTheSameServersAndTheNullServerBeside() throws Exception {
    RoundScenario s = RoundScenario.parse(SCENARIOS.resolve("capacity.scenario"));
    assertEquals(List.of(new RoundScenario.Cell("bench", "/hello", KEEP_ALIVE, 0), new RoundScenario.Cell("bench", "/hello", NEW, 0)), s.cells());
    assertTrue(s.cells().stream().allMatch(RoundScenario.Cell::closedLoop));
    assertEquals(5, s.rounds());
    assertEquals(16, s.wrkConnections());
    assertEquals(15_000_000_000L, s.measureNs());
    assertEquals(15_000_000_000L, warmupNs(s, "bench"));
    assertEquals("null", s.servers().get(s.servers().size() - 1).kind());
    assertSameServers(s);
  }

  @Test
  void aQuickRunKeepsOnlyTheCellsAndServersAskedForWithShorterDurations() throws Exception {
    RoundScenario quick = RoundScenario.parse(SCENARIOS.resolve("capacity.scenario")).with(1, 1_000_000_000L, 3_000_000_000L)
        .only(List.of("puma-plus", "null"), List.of(), List.of(), List.of("new"), List.of());
    assertEquals(1, quick.rounds());
    assertEquals(3_000_000_000L, quick.measureNs());
    assertTrue(quick.warmups().stream().allMatch(w -> w.durationNs() == 1_000_000_000L), "--warmup sets every warm-up line");
    assertEquals(List.of(new RoundScenario.Cell("bench", "/hello", NEW, 0)), quick.cells());
    assertEquals(List.of("puma-plus", "null"), quick.servers().stream().map(Scenario.ServerSpec::name).toList());
    RoundScenario capacity = RoundScenario.parse(SCENARIOS.resolve("capacity.scenario"));
    List<String> none = List.of();
    assertThrows(IllegalArgumentException.class, () -> capacity.only(List.of("unicorn"), none, none, none, List.of()));
    assertThrows(IllegalArgumentException.class, () -> capacity.only(none, none, none, none, List.of(50.0)),
        "a closed-loop cell has no rate: a rate filter leaves no cell, which is an error, not an empty run");
  }

  @Test
  void aServerWhoseCommandNamesPuma8RunsOnlyWithThatDirectoryAndPumaPlusAndTheNullServerHaveAHost() throws Exception {
    RoundScenario s = RoundScenario.parse(SCENARIOS.resolve("capacity.scenario"));
    assertEquals(List.of("puma8"), s.servers().stream().filter(RoundScenario::needsPuma8).map(Scenario.ServerSpec::name).toList());
    assertEquals(List.of("puma8", "puma"), s.baselines());
    assertEquals(List.of("puma-plus", "null"), s.servers().stream().filter(RoundScenario::hasHost).map(Scenario.ServerSpec::name).toList());
  }

  @Test
  void aCellOfAnUndeclaredAppAnUnknownBaselineOrAnUnknownDirectiveNamesTheProblem() throws Exception {
    Path bad = dir.resolve("bad.scenario");
    Files.writeString(bad, "app a /x.ru /health\nopen-loop b /hello new 10\nserver s puma puma {app}\n");
    assertTrue(assertThrows(IllegalArgumentException.class, () -> RoundScenario.parse(bad)).getMessage().contains(":2: no app named b"));
    Files.writeString(bad, "app a /x.ru /health\nclosed-loop a /hello keep-alive\nserver s puma puma {app}\nbaseline t\n");
    assertTrue(assertThrows(IllegalArgumentException.class, () -> RoundScenario.parse(bad)).getMessage().contains("baseline t is no server"));
    Files.writeString(bad, "app a /x.ru /health\nclosed-loop a /hello close\n");
    assertTrue(assertThrows(IllegalArgumentException.class, () -> RoundScenario.parse(bad)).getMessage()
        .contains(":2: connection is keep-alive or new, was: close"));
    Files.writeString(bad, "app a /x.ru /health\nstep 1s 10\n");
    assertTrue(assertThrows(IllegalArgumentException.class, () -> RoundScenario.parse(bad)).getMessage().contains(":2: unknown directive 'step'"));
    assertFalse(RoundScenario.describes(SCENARIOS.resolve("overhead.scenario")), "an open-loop Scenario is not a round benchmark");
  }

  private static long warmupNs(RoundScenario s, String app) {
    return s.warmups().stream().filter(w -> w.app().equals(app)).mapToLong(RoundScenario.Warmup::durationNs).sum();
  }

  /** Every server is `-e production`, serves {app} and runs 1 worker x 5 threads (the null server aside). */
  private static void assertSameServers(RoundScenario s) {
    assertEquals(List.of("puma-plus", "puma", "puma8"), s.servers().stream().map(Scenario.ServerSpec::name).limit(3).toList());
    for (Scenario.ServerSpec server : s.servers()) {
      if (server.kind().equals("null")) continue;
      assertTrue(server.command().contains("-e production") && server.command().contains("{app}"), server.command());
      assertTrue(server.command().contains("-w 1 -t 5:5"), server.command());
    }
  }
}
