// Every scenario file in bench/scenarios parses (open-loop or a round benchmark), and each comparison scenario puts
// puma-plus and Debian's puma side by side on the same app with the same workers x threads.
package dev.pumaplus.bench.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class ScenarioTest {
  private static final Path SCENARIOS = Path.of("..", "scenarios");

  private static Scenario scenario(String name) throws Exception {
    return Scenario.parse(SCENARIOS.resolve(name + ".scenario"));
  }

  @Test
  void everyScenarioFileParses() throws Exception {
    try (Stream<Path> files = Files.list(SCENARIOS)) {
      List<Path> all = files.filter(p -> p.toString().endsWith(".scenario")).toList();
      assertTrue(all.size() >= 7, "floor, smoke and the five scenarios: " + all);
      for (Path file : all) assertNotNull(RoundScenario.describes(file) ? RoundScenario.parse(file) : Scenario.parse(file));
    }
  }

  @Test
  void theFiveScenariosRunPumaPlusAndPumaWithMatchingWorkersAndThreads() throws Exception {
    for (String name : List.of("overhead", "steady", "step", "router", "slots")) {
      Scenario s = scenario(name);
      Scenario.ServerSpec plus = s.servers().stream().filter(x -> x.kind().equals("puma-plus")).findFirst().orElseThrow();
      Scenario.ServerSpec puma = s.servers().stream().filter(x -> x.kind().equals("puma")).findFirst().orElseThrow();
      assertTrue(plus.command().contains("{app}") && puma.command().contains("{app}"), name + ": the same app");
      assertEquals(sizing(plus.command()), sizing(puma.command()), name + ": matching workers x threads");
    }
  }

  @Test
  void routerScenarioUsesAKeepAlivePoolAndSlotsScenarioProbesHealthEverySecond() throws Exception {
    assertEquals(ConnectionMode.Kind.POOL, scenario("router").connection().kind());
    Scenario slots = scenario("slots");
    assertEquals(1_000_000_000L, slots.probe().intervalNs());
    assertEquals(5_000_000_000L, slots.probe().timeoutNs());
  }

  @Test
  void theRailsStepWaitsForItsOwnPageAndTheOthersForHealth() throws Exception {
    Scenario rails = scenario("elastic-rails");
    assertEquals("/report?wait=24", rails.readyPath());
    assertTrue(rails.servers().stream().allMatch(s -> s.command().endsWith("{root}/examples/rails/config.ru")));
    assertEquals("/health", scenario("elastic").readyPath());
  }

  @Test
  void anUnknownDirectiveNamesItsLine() throws Exception {
    Path file = Files.createTempFile("bad", ".scenario");
    try {
      Files.writeString(file, "path /hello\nstep 1s 10\nrate 10\n");
      IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> Scenario.parse(file));
      assertTrue(e.getMessage().contains(":3: unknown directive 'rate'"), e.getMessage());
    } finally {
      Files.delete(file);
    }
  }

  @Test
  void theSlowDependencyScenarioStepsFromHalfToTwiceTheDependencysCapacityAndEveryServerCallsIt() throws Exception {
    Scenario s = scenario("slowdep");
    assertEquals(new Scenario.Dependency(20, 40_000_000L), s.dependency());
    assertEquals(500, s.dependency().capacityPerSecond(), 1e-9);
    assertEquals(List.of(250.0, 1000.0, 250.0), s.schedule().steps().stream().map(RateSchedule.Step::rps).toList());
    assertEquals(ConnectionMode.Kind.POOL, s.connection().kind());
    assertEquals(5_000_000_000L, s.timeoutNs());
    for (Scenario.ServerSpec server : s.servers()) {
      assertTrue(server.command().startsWith("env BENCH_DEPENDENCY={dependency} "), server.name());
      assertTrue(server.command().endsWith("/bench/app/dependency.ru"), server.name());
    }
    Scenario.ServerSpec plus = s.servers().get(0);
    assertTrue(plus.kind().equals("puma-plus") && plus.command().contains("--fibers 128") && plus.command().contains("{control_token}"));
    assertTrue(s.servers().stream().anyMatch(x -> x.command().contains("async_http_rack.rb")));
  }

  @Test
  void aDependencyLineWithoutItsHoldOrAPlaceholderWithoutTheLineIsAnErrorNamingIt() throws Exception {
    Path file = Files.createTempFile("dep", ".scenario");
    try {
      Files.writeString(file, "path /dep\nstep 1s 10\ndependency 20\nserver x puma y\n");
      IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> Scenario.parse(file));
      assertTrue(e.getMessage().contains(":3: dependency needs: CONCURRENCY HOLD"), e.getMessage());
      Files.writeString(file, "path /dep\nstep 1s 10\ndependency 0 40ms\nserver x puma y\n");
      e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> Scenario.parse(file));
      assertTrue(e.getMessage().contains(":3: dependency concurrency must be >= 1"), e.getMessage());
      Files.writeString(file, "path /dep\nstep 1s 10\nserver x puma env B={dependency} y\n");
      e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> Scenario.parse(file));
      assertTrue(e.getMessage().contains("server x uses {dependency} but there is no 'dependency' line"), e.getMessage());
      Files.writeString(file, "path /dep\nstep 1s 10\nserver x puma y\n");
      assertEquals(null, Scenario.parse(file).dependency());
    } finally {
      Files.delete(file);
    }
  }

  @Test
  void theDependencyPlaceholderBecomesItsHostAndPort() {
    Scenario.ServerSpec spec = new Scenario.ServerSpec("x", "puma", "env BENCH_DEPENDENCY={dependency} ruby --port {port}");
    assertEquals("env BENCH_DEPENDENCY=127.0.0.1:4567 ruby --port 80",
        ScenarioRunner.command(spec, 80, 81, Path.of("/r"), null, "127.0.0.1:4567"));
  }

  private static String sizing(String command) {
    String w = command.replaceAll(".*-w (\\d+).*", "$1");
    String t = command.replaceAll(".*-t (\\d+:\\d+).*", "$1");
    return w + "x" + t;
  }
}
