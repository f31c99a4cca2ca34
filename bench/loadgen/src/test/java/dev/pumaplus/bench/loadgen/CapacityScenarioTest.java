// bench/scenarios/capacity.scenario: puma-plus and Debian's puma in pairs with the same workers x threads,
// both connection modes, the null server as the client's ceiling; and the quick-run overrides.
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
class CapacityScenarioTest {
  private static final Path FILE = Path.of("..", "scenarios", "capacity.scenario");

  @TempDir
  Path dir;

  @Test
  void capacityPairsPumaPlusWithPumaPerConfigurationInBothConnectionModesBesideTheNullServer() throws Exception {
    assertTrue(CapacityScenario.describes(FILE));
    assertFalse(CapacityScenario.describes(FILE.resolveSibling("overhead.scenario")));
    CapacityScenario s = CapacityScenario.parse(FILE);
    assertEquals(List.of(CapacityScenario.Connection.KEEP_ALIVE, CapacityScenario.Connection.CLOSE), s.modes());
    assertEquals("/hello", s.path());
    assertEquals(16, s.connections());
    assertEquals(5_000_000_000L, s.warmupNs());
    assertEquals(15_000_000_000L, s.measureNs());
    assertEquals(3, s.repeat());
    assertEquals(List.of("puma-plus:w1", "puma:w1", "puma-plus:w2", "puma:w2", "null"), s.servers().stream().map(Scenario.ServerSpec::name).toList());
    for (String config : List.of("w1", "w2")) {
      Scenario.ServerSpec plus = server(s, "puma-plus:" + config);
      Scenario.ServerSpec puma = server(s, "puma:" + config);
      assertEquals(config, CapacityScenario.config(plus));
      for (Scenario.ServerSpec spec : List.of(plus, puma)) {
        assertTrue(spec.command().contains("-e production") && spec.command().contains("{app}"), spec.command());
        assertTrue(spec.command().contains("-w " + config.substring(1) + " -t 5:5"), spec.command());
      }
    }
    assertEquals("null", server(s, "null").kind());
  }

  @Test
  void aQuickRunOverridesRepetitionsAndDurationsAndOnlyKeepsTheNamedServers() throws Exception {
    CapacityScenario quick = CapacityScenario.parse(FILE).with(1, 1_000_000_000L, 3_000_000_000L).onlyServers(List.of("puma:w1", "null"));
    assertEquals(1, quick.repeat());
    assertEquals(1_000_000_000L, quick.warmupNs());
    assertEquals(3_000_000_000L, quick.measureNs());
    assertEquals(List.of("puma:w1", "null"), quick.servers().stream().map(Scenario.ServerSpec::name).toList());
    assertThrows(IllegalArgumentException.class, () -> CapacityScenario.parse(FILE).onlyServers(List.of("unicorn")));
  }

  @Test
  void aServerNameMustStartWithItsKindAndAnUnknownDirectiveNamesItsLine() throws Exception {
    Path bad = dir.resolve("bad.scenario");
    Files.writeString(bad, "closed-loop wrk 4 1\nconnection close\nserver w1 puma puma {app}\n");
    assertTrue(assertThrows(IllegalArgumentException.class, () -> CapacityScenario.parse(bad)).getMessage().contains(":3: server name"));
    Files.writeString(bad, "closed-loop wrk 4 1\nconnection close\nstep 1s 10\n");
    assertTrue(assertThrows(IllegalArgumentException.class, () -> CapacityScenario.parse(bad)).getMessage().contains(":3: unknown directive 'step'"));
  }

  private static Scenario.ServerSpec server(CapacityScenario s, String name) {
    return s.servers().stream().filter(x -> x.name().equals(name)).findFirst().orElseThrow();
  }
}
