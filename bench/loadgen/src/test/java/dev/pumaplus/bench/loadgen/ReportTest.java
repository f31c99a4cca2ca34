// The report of a run: the table, the per-second timeline, a PNG plot and the raw per-request CSV, from a
// real (short) run against the null server; a baseline's ratios, round by round; the servers left out.
package dev.pumaplus.bench.loadgen;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(30)
class ReportTest {
  @TempDir
  Path out;

  @Test
  void writesTableTimelinePlotAndOneCsvLinePerRequest() throws Exception {
    Path file = out.resolve("mini.scenario");
    Files.writeString(file, "name mini\npath /hello\nstep 2s 100\nprobe /health 1s 1s\nserver null null unused\n");
    Scenario scenario = Scenario.parse(file);
    LoadGenerator.Result result;
    try (ClientLoop loop = new ClientLoop(); NullServer server = new NullServer(0)) {
      result = LoadGenerator.run(loop, new InetSocketAddress("127.0.0.1", server.port()), new LoadGenerator.Settings(
          scenario.path(), scenario.schedule(), 1, scenario.timeoutNs(), scenario.connection(), scenario.probe()));
    }
    RunStats stats = RunStats.of(scenario.schedule(), result, scenario.sloNs());
    Timeline timeline = Timeline.build(scenario.schedule(), result, List.of(), List.of(), false, List.of());
    Report.writeRequests(result, out.resolve("null-r1.requests.csv"));
    Report.write(scenario, List.of(new ScenarioRunner.Run("null", 1, stats, List.of(stats), 1, 2, 1, 50, timeline, "0 0 0", "0 0 0", null)), List.of(), out, "1");

    List<String> csv = Files.readAllLines(out.resolve("null-r1.requests.csv"));
    assertEquals(1 + result.load().size() + result.probes().size(), csv.size());
    assertTrue(Files.readString(out.resolve("summary.md")).contains("| null | "));
    String text = Files.readString(out.resolve("timeline.txt"));
    assertTrue(text.lines().anyMatch(l -> l.trim().startsWith("2s ")), text);
    byte[] png = Arrays.copyOf(Files.readAllBytes(out.resolve("timeline.png")), 8);
    assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, png);
  }

  @Test
  void aBaselineGetsEachServersRatiosRoundByRoundAndTheServersLeftOutAreNamed() throws Exception {
    Path file = out.resolve("pair.scenario");
    Files.writeString(file, "name pair\npath /hello\nstep 1s 50\nbaseline base\nserver base null unused\n"
        + "server other null unused\n");
    Scenario scenario = Scenario.parse(file);
    LoadGenerator.Result result;
    try (ClientLoop loop = new ClientLoop(); NullServer server = new NullServer(0)) {
      result = LoadGenerator.run(loop, new InetSocketAddress("127.0.0.1", server.port()), new LoadGenerator.Settings(
          scenario.path(), scenario.schedule(), 1, scenario.timeoutNs(), scenario.connection(), null));
    }
    RunStats stats = RunStats.of(scenario.schedule(), result, scenario.sloNs());
    Timeline timeline = Timeline.build(scenario.schedule(), result, List.of(), List.of(), false, List.of());
    // Round 1: the other server's peak memory 1.5x and its CPU 0.5x the baseline's; round 2: 2x and 1x.
    List<ScenarioRunner.Run> runs = List.of(
        new ScenarioRunner.Run("base", 1, stats, List.of(stats), 1, 100, 1, 40, timeline, "0 0 0", "0 0 0", null),
        new ScenarioRunner.Run("other", 1, stats, List.of(stats), 1, 150, 1, 20, timeline, "0 0 0", "0 0 0", null),
        new ScenarioRunner.Run("base", 2, stats, List.of(stats), 1, 50, 1, 10, timeline, "0 0 0", "0 0 0", null),
        new ScenarioRunner.Run("other", 2, stats, List.of(stats), 1, 100, 1, 10, timeline, "0 0 0", "0 0 0", null));
    Report.write(scenario.withRepeat(2), runs, List.of("puma8: NOT RUN: no --puma8 DIR was given"), out, "1");

    String summary = Files.readString(out.resolve("summary.md"));
    assertTrue(summary.contains("Ratios to base in the same round"), summary);
    assertTrue(summary.contains("| other | 1.00 [1.00–1.00] | 1.75 [1.50–2.00] | 0.75 [0.50–1.00] | 2 |"), summary);
    assertTrue(summary.contains("- puma8: NOT RUN: no --puma8 DIR was given"), summary);
  }

  @Test
  void aBaselineThatIsNotAServerOfTheScenarioIsAnErrorNamingIt() throws Exception {
    Path file = out.resolve("bad.scenario");
    Files.writeString(file, "path /hello\nstep 1s 10\nbaseline nobody\nserver null null unused\n");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Scenario.parse(file));
    assertTrue(e.getMessage().contains("baseline nobody is not a server of the scenario"), e.getMessage());
  }
}
