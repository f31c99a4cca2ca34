// bench/scenarios/lowrate.scenario, capacity.scenario and fresh.scenario as round benchmarks: their cells,
// warm-ups, windows, apps and servers (puma-plus, puma 5.6 and puma 8 with the same workers x threads), and the
// quick-run filters.
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
  private static final RoundScenario.Connection H2 = RoundScenario.Connection.H2;

  @TempDir
  Path dir;

  @Test
  void lowrateMeasuresHelloAndMixAtFourRatesBothWaysHighestFirstHelloOverH2AtThreeAndTheRailsPageAtTwoWithTheOverloadCellsLast()
      throws Exception {
    RoundScenario s = RoundScenario.parse(SCENARIOS.resolve("lowrate.scenario"));
    assertTrue(RoundScenario.describes(SCENARIOS.resolve("lowrate.scenario")));
    assertEquals(5, s.rounds());
    assertEquals(16, s.pool());
    for (String path : List.of("/hello", "/mix/2/0")) {
      for (RoundScenario.Connection c : List.of(KEEP_ALIVE, NEW)) {
        List<Double> rates = s.cells().stream().filter(x -> x.path().equals(path) && x.connection() == c).map(RoundScenario.Cell::rps).toList();
        assertEquals(List.of(10.0, 50.0, 200.0, 1000.0), rates.stream().sorted().toList(), path + " " + c.word);
      }
    }
    assertEquals(List.of(200.0, 50.0, 10.0), s.cells().stream().filter(c -> c.connection() == H2).map(RoundScenario.Cell::rps).toList());
    assertTrue(s.cells().stream().filter(c -> c.connection() == H2).allMatch(c -> c.path().equals("/hello")));
    assertEquals(4, s.h2Connections());
    List<RoundScenario.Cell> rails = s.cells().stream().filter(c -> c.app().equals("rails")).toList();
    assertEquals(List.of(new RoundScenario.Cell("rails", "/", KEEP_ALIVE, 200), new RoundScenario.Cell("rails", "/", KEEP_ALIVE, 50)), rails);
    List<RoundScenario.Cell> bench = s.cells().stream().filter(c -> c.app().equals("bench")).toList();
    assertEquals(List.of(1000.0, 200.0, 50.0, 10.0), bench.subList(0, 4).stream().map(RoundScenario.Cell::rps).toList(),
        "the first cell after the warm-up pays for the change from saturation; at the highest rate it costs least per request");
    assertEquals(List.of(1000.0, 1000.0), bench.subList(bench.size() - 2, bench.size()).stream().map(RoundScenario.Cell::rps).toList(),
        "/mix/2/0 at 1,000 rps is twice what one core serves: its backlog must not reach another cell");
    assertEquals("/mix/2/0", bench.get(bench.size() - 1).path());

    RoundScenario.App railsApp = s.app("rails");
    assertEquals("/", railsApp.readyPath(), "the Rails example has no /health: its page says it is up");
    assertEquals("production", railsApp.env().get("RAILS_ENV"));
    assertTrue(railsApp.env().get("DATABASE_PATH").startsWith("{out}/"), "the database lives in the results, not in examples/rails");
    assertEquals(List.of("rails"), s.setups().stream().map(RoundScenario.Setup::app).toList());
    assertEquals(18_000_000_000L, warmupNs(s, "bench"), "~15 s of closed-loop warm-up, every path and mode the cells use");
    assertEquals(H2, s.warmups().get(0).connection(), "h2 first: the servers that skip it end their warm-ups the same way as the rest");
    assertEquals(15_000_000_000L, warmupNs(s, "rails"));
    assertTrue(s.warmups().stream().anyMatch(w -> w.app().equals("bench") && w.path().equals("/mix/2/0") && w.connection() == NEW));
    assertSameServers(s);
  }

  @Test
  void capacityIsTheClosedLoopInAllThreeModesWithTheSameServersAndTheNullServerBeside() throws Exception {
    RoundScenario s = RoundScenario.parse(SCENARIOS.resolve("capacity.scenario"));
    assertEquals(List.of(new RoundScenario.Cell("bench", "/hello", KEEP_ALIVE, 0), new RoundScenario.Cell("bench", "/hello", NEW, 0),
        new RoundScenario.Cell("bench", "/hello", H2, 0)), s.cells());
    assertTrue(s.cells().stream().allMatch(RoundScenario.Cell::closedLoop));
    assertEquals(5, s.rounds());
    assertEquals(16, s.wrkConnections());
    assertEquals(15_000_000_000L, s.measureNs());
    assertEquals(20_000_000_000L, warmupNs(s, "bench"));
    assertEquals(H2, s.warmups().get(0).connection());
    assertEquals("null", s.servers().get(s.servers().size() - 1).kind());
    assertSameServers(s);
  }

  @Test
  void aQuickRunKeepsOnlyTheCellsAndServersAskedForWithShorterDurations() throws Exception {
    RoundScenario quick = RoundScenario.parse(SCENARIOS.resolve("lowrate.scenario")).with(1, 2_000_000_000L, 10_000_000_000L)
        .only(List.of("puma-plus", "puma"), List.of("bench"), List.of("/hello"), List.of("keep-alive"), List.of(50.0, 200.0));
    assertEquals(1, quick.rounds());
    assertEquals(10_000_000_000L, quick.measureNs());
    assertTrue(quick.warmups().stream().allMatch(w -> w.durationNs() == 2_000_000_000L), "--warmup sets every warm-up line");
    assertEquals(List.of(new RoundScenario.Cell("bench", "/hello", KEEP_ALIVE, 200), new RoundScenario.Cell("bench", "/hello", KEEP_ALIVE, 50)),
        quick.cells(), "in the file's order");
    assertEquals(List.of("bench"), quick.measuredApps().stream().map(RoundScenario.App::name).toList(), "no Rails process is started");
    assertEquals(List.of("puma-plus", "puma"), quick.servers().stream().map(Scenario.ServerSpec::name).toList());
    RoundScenario lowrate = RoundScenario.parse(SCENARIOS.resolve("lowrate.scenario"));
    List<String> none = List.of();
    List<Double> anyRate = List.of();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> lowrate.only(none, none, none, none, List.of(300.0)));
    assertTrue(e.getMessage().contains("no cell has rate 300"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> lowrate.only(List.of("unicorn"), none, none, none, anyRate));
    assertThrows(IllegalArgumentException.class, () -> lowrate.only(none, List.of("rails"), List.of("/hello"), none, anyRate),
        "a filter that leaves no cell is an error, not an empty run");
    RoundScenario capacity = RoundScenario.parse(SCENARIOS.resolve("capacity.scenario"));
    assertThrows(IllegalArgumentException.class, () -> capacity.only(none, none, none, none, List.of(50.0)),
        "a closed-loop cell has no rate: --rates leaves none of capacity's cells");
  }

  @Test
  void aServerWhoseCommandNamesPuma8RunsOnlyWithThatDirectoryAndPumaPlusAndTheNullServerHaveAHost() throws Exception {
    RoundScenario s = RoundScenario.parse(SCENARIOS.resolve("lowrate.scenario"));
    assertEquals(List.of("puma8"), s.servers().stream().filter(RoundScenario::needsPuma8).map(Scenario.ServerSpec::name).toList());
    assertEquals(List.of("puma8", "puma"), s.baselines());
    assertEquals(List.of("puma-plus"), s.servers().stream().filter(RoundScenario::hasHost).map(Scenario.ServerSpec::name).toList());
    assertTrue(RoundScenario.hasHost(new Scenario.ServerSpec("null", "null", "x")));
  }

  @Test
  void h2CellsAndWarmUpsRunOverFourConnectionsByDefaultAndAServerOfKindPumaSkipsThem() throws Exception {
    Path file = dir.resolve("h2.scenario");
    String body = """
        app bench /x.ru /health
        warmup bench 2s /hello h2
        open-loop bench /hello h2 50
        closed-loop bench /hello h2
        open-loop bench /hello keep-alive 50
        server puma-plus puma-plus {puma_plus} {app}
        server puma puma puma {app}
        server null null {java} -jar {jar} null-server {port}
        """;
    Files.writeString(file, body);
    RoundScenario s = RoundScenario.parse(file);
    assertEquals(4, s.h2Connections());
    assertEquals(List.of(new RoundScenario.Cell("bench", "/hello", H2, 50), new RoundScenario.Cell("bench", "/hello", H2, 0)),
        s.cells().subList(0, 2));
    assertEquals(H2, s.warmups().get(0).connection());
    Scenario.ServerSpec plus = s.servers().get(0);
    Scenario.ServerSpec puma = s.servers().get(1);
    Scenario.ServerSpec nullServer = s.servers().get(2);
    assertTrue(RoundScenario.speaks(plus, H2) && RoundScenario.speaks(nullServer, H2), "puma-plus and the null server serve h2c");
    assertFalse(RoundScenario.speaks(puma, H2), "puma 5.6 and 8 have no HTTP/2");
    assertTrue(RoundScenario.speaks(puma, KEEP_ALIVE) && RoundScenario.speaks(puma, NEW));
    assertEquals(2, s.only(List.of(), List.of(), List.of(), List.of("h2"), List.of()).cells().size(), "--connections h2");
    Files.writeString(file, "h2-connections 1\n" + body);
    assertEquals(1, RoundScenario.parse(file).h2Connections());
    Files.writeString(file, "h2-connections 0\n" + body);
    assertThrows(IllegalArgumentException.class, () -> RoundScenario.parse(file));
  }

  @Test
  void freshStartsEveryServerInEachRoundAndMeasuresSixtyRpsFromTheReadyAnswerForTwoMinutesInFourWindows() throws Exception {
    RoundScenario s = RoundScenario.parse(SCENARIOS.resolve("fresh.scenario"));
    assertTrue(RoundScenario.describes(SCENARIOS.resolve("fresh.scenario")), "bench/run takes it for a round benchmark");
    assertEquals(5, s.rounds());
    assertEquals(List.of(new RoundScenario.Cell("bench", "/hello", KEEP_ALIVE, 60, List.of(10_000_000_000L, 30_000_000_000L, 60_000_000_000L))),
        s.cells(), "one continuous cell: the windows split it, the load does not pause between them");
    assertEquals(120_000_000_000L, s.measureNs());
    assertTrue(s.warmups().isEmpty() && s.settleNs() == 0 && s.pauseNs() == 0, "nothing between the ready answer and the first request");
    assertTrue(RoundReport.measuredFromReady(s));
    RoundScenario.Cell cell = s.cells().get(0);
    assertEquals(List.of("0–10 s", "10–30 s", "30–60 s", "60–120 s"), cell.windows(s.measureNs()).stream().map(RoundScenario.Span::label).toList());
    assertEquals(List.of("0–10 s", "0–30 s", "0–60 s"), cell.firsts().stream().map(RoundScenario.Span::label).toList());
    assertEquals(6, cell.spans(s.measureNs()).size(), "four windows, and the first 30 and 60 s (the first 10 s is a window)");
    assertEquals(List.of("puma-plus", "puma-plus-noaot", "puma", "puma8"), s.servers().stream().map(Scenario.ServerSpec::name).toList());
    Scenario.ServerSpec noAot = s.servers().get(1);
    assertTrue(noAot.command().startsWith("env JAVA_TOOL_OPTIONS=-XX:AOTMode=off {puma_plus} "), noAot.command());
    assertTrue(RoundScenario.hasHost(noAot));
    assertEquals(s.servers().get(0).command(), noAot.command().replace("env JAVA_TOOL_OPTIONS=-XX:AOTMode=off ", ""), "nothing else differs");
    for (Scenario.ServerSpec server : s.servers()) {
      assertTrue(server.command().contains("-e production") && server.command().contains("-w 1 -t 5:5") && server.command().endsWith("{app}"));
    }
  }

  @Test
  void windowsSplitAtIncreasingTimesInsideTheMeasuredTimeAndAShorterQuickRunDropsTheSplitsPastItsEnd() throws Exception {
    Path file = dir.resolve("w.scenario");
    String head = "measure 60s\napp a /x.ru /health\nserver s puma puma {app}\n";
    Files.writeString(file, head + "open-loop a /hello keep-alive 60 20 windows 10s 30s\n");
    RoundScenario s = RoundScenario.parse(file);
    assertEquals(2, s.cells().size(), "one windowed cell per rate");
    assertTrue(s.cells().stream().allMatch(c -> c.windowsNs().equals(List.of(10_000_000_000L, 30_000_000_000L))));
    assertEquals(1_000_000_000L, s.settleNs(), "settling is on unless the file turns it off");
    RoundScenario quick = s.with(null, null, 20_000_000_000L);
    assertEquals(List.of(10_000_000_000L), quick.cells().get(0).windowsNs());
    assertEquals(List.of("0–10 s", "10–20 s"), quick.cells().get(0).windows(quick.measureNs()).stream().map(RoundScenario.Span::label).toList());
    assertFalse(s.with(null, null, 5_000_000_000L).cells().get(0).windowed(), "no split left: one window, the whole cell");
    for (String bad : List.of("windows 30s 10s", "windows 0s", "windows", "windows 10s 60s", "20 windows 10s x")) {
      Files.writeString(file, head + "open-loop a /hello keep-alive " + (bad.startsWith("20") ? "" : "60 ") + bad + "\n");
      assertThrows(IllegalArgumentException.class, () -> RoundScenario.parse(file), bad);
    }
    Files.writeString(file, head + "open-loop a /hello keep-alive windows 10s\n");
    assertThrows(IllegalArgumentException.class, () -> RoundScenario.parse(file), "a rate first");
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
        .contains(":2: connection is keep-alive, new or h2, was: close"));
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
