// RoundReport on fixed cells: each row is the median over the rounds with its range, CPU per request is split
// into host, Ruby (tree − host) and tree, the ratio columns are to puma 8, or to puma 5.6 when puma 8 was not
// run, and then the report and the console say that it was not run; servers without HTTP/2 show "—" on h2 cells;
// a windowed cell is reported per window and its first seconds against its warm window, round by round.
package dev.pumaplus.bench.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(10)
class RoundReportTest {
  /** The span of a cell that is not split: its whole 20 s. */
  private static final RoundScenario.Span WHOLE = new RoundScenario.Span(0, 20_000_000_000L);

  @TempDir
  Path out;

  private RoundScenario scenario() throws Exception {
    Path file = out.resolve("low.scenario");
    Files.writeString(file, """
        name low
        rounds 3
        app bench {root}/bench/app/config.ru /health
        warmup bench 15s /hello keep-alive
        open-loop bench /hello keep-alive 50
        baseline puma8 puma
        server puma-plus puma-plus {puma_plus} -w 1 -t 5:5 {app}
        server puma puma puma -w 1 -t 5:5 {app}
        server puma8 puma ruby -I{puma8}/lib {puma8}/bin/puma -w 1 -t 5:5 {app}
        """);
    return RoundScenario.parse(file);
  }

  @Test
  void eachFigureIsTheMedianOverTheRoundsWithItsRangeAndCpuIsSplitIntoHostRubyAndTree() throws Exception {
    RoundScenario s = scenario();
    List<CellRun> runs = new ArrayList<>();
    for (int round = 1; round <= 3; round++) {
      // puma-plus: 1,000 requests a round; the tree used 100, 120 and (a slow round) 400 ms, the host 60 ms of it
      runs.add(run(s, 0, round, new long[] {100, 120, 400}[round - 1], 60, new double[] {1.0, 1.1, 5.0}[round - 1]));
      runs.add(run(s, 1, round, 70, 0, 0.9));
      runs.add(run(s, 2, round, 80, 0, 1.0));
    }
    RoundReport.write(header(s, s.servers(), List.of()), runs, out);
    String md = Files.readString(out.resolve("summary.md"));
    assertTrue(md.contains("| 50 rps | puma-plus | 50.0 [49.0–51.0] | 60.0 µs [60.0–60.0] | 60.0 µs [40.0–340.0] | 120.0 µs [100.0–400.0] "
        + "| 1.10 ms [1.00–5.00] | 2.00 ms [2.00–2.00] | 3.00 ms [3.00–3.00] | 4.00 ms [4.00–4.00] | 0 [0–0] | 85 MB [85–85] | 120 MB [120–120] "
        + "| 1.00× | 1.50× | 1.10× | 1.00× |"), md);
    assertTrue(md.contains("| 50 rps | puma | 50.0 [49.0–51.0] | n/a | 70.0 µs [70.0–70.0] | 70.0 µs [70.0–70.0] |"),
        "puma has no host: its Ruby processes are its whole tree\n" + md);
    assertTrue(md.contains("| 50 rps | puma8 | 50.0 [49.0–51.0] | n/a | 80.0 µs [80.0–80.0] | 80.0 µs [80.0–80.0] | 1.00 ms [1.00–1.00] "
        + "| 2.00 ms [2.00–2.00] | 3.00 ms [3.00–3.00] | 4.00 ms [4.00–4.00] | 0 [0–0] | n/a | 120 MB [120–120] | — | — | — | — |"), md);
    assertTrue(md.contains("| rate | server | achieved rps | host CPU / request | Ruby CPU / request | tree CPU / request | p50 | p95 | p99 | p99.9 "
        + "| errors | host RSS | tree PSS | rps ÷ puma8 | tree CPU ÷ puma8 | p50 ÷ puma8 | p99 ÷ puma8 |"), md);
    assertTrue(md.contains("## bench `/hello`, open loop, keep-alive (a pool of up to 16 connections)"), md);
    assertTrue(md.contains("- ratios: to puma8 (median over median)"), md);
    assertTrue(md.contains("- command: `bench/run low --rounds 3`"), md);
    assertTrue(md.contains("Before the first round the generator warms its own client, with no server of the run: 3 s per HTTP/1.1 "
        + "connection kind of the open-loop cells, at their highest rate (at most 8,000 rps)"), md);
    assertTrue(md.contains("- machine: 2 CPUs (Test CPU), Linux 6.1; servers on CPU 0, the generator and wrk on CPU(s) 1"), md);
    assertTrue(md.contains("  - `puma8` (8.0.2): `ruby -I/work/puma-8.0.2/lib /work/puma-8.0.2/bin/puma -w 1 -t 5:5 {app}`"), md);
    assertTrue(md.contains("puma-plus round 3, bench /hello keep-alive 50 rps: offered 50.2, 51.0 rps (1000 answered, 0 errors)"), md);
    assertFalse(md.contains("NOT RUN"), md);
  }

  @Test
  void withoutPuma8TheReportAndConsoleSayItWasNotRunAndTheRatiosAreToPuma() throws Exception {
    RoundScenario s = scenario();
    List<Scenario.ServerSpec> ran = s.servers().subList(0, 2);
    List<Scenario.ServerSpec> skipped = s.servers().subList(2, 3);
    List<CellRun> runs = List.of(run(s, 0, 1, 140, 60, 1.4), run(s, 1, 1, 70, 0, 1.0));
    RoundReport.write(header(s, ran, skipped), runs, out);
    String md = Files.readString(out.resolve("summary.md"));
    String notRun = "puma8: NOT RUN: no --puma8 DIR was given";
    assertTrue(RoundReport.notRun(skipped).get(0).startsWith(notRun), "the console's line");
    assertTrue(md.contains("  - **" + notRun), md);
    assertTrue(md.contains("- ratios: to puma, because puma8 was not run (median over median)"), md);
    assertTrue(md.contains("| rps ÷ puma | tree CPU ÷ puma | p50 ÷ puma | p99 ÷ puma |"), md);
    assertTrue(md.contains("| 50 rps | puma-plus | 49.0 | 60.0 µs | 80.0 µs | 140.0 µs | 1.40 ms |"), "one round: no ranges\n" + md);
    assertTrue(md.contains("| 1.00× | 2.00× | 1.40× | 1.00× |"), md);
    assertFalse(md.contains("| puma8 |"), "no row for a server that did not run\n" + md);
  }

  @Test
  void aTableListsItsRatesLowestFirstWhileTheHeaderSaysTheOrderTheyRanIn() throws Exception {
    Path file = out.resolve("order.scenario");
    Files.writeString(file, """
        app bench {root}/bench/app/config.ru /health
        open-loop bench /hello keep-alive 200 10
        server puma puma puma {app}
        """);
    RoundScenario s = RoundScenario.parse(file);
    List<CellRun> runs = new ArrayList<>();
    for (RoundScenario.Cell cell : s.cells()) {
      runs.add(new CellRun(s.servers().get(0), 1, cell, WHOLE, 100, 0, cell.rps(), cell.rps(), 1, 2, 3, 4, new CpuAccount.Usage(10_000_000L, 0, 0),
          false, -1, 30 * 1024, 2, 1, Double.NaN, 0.25, "1 1 1", "1 1 1"));
    }
    RoundReport.write(header(s, s.servers(), List.of()), runs, out);
    String md = Files.readString(out.resolve("summary.md"));
    assertTrue(md.indexOf("| 10 rps | puma |") < md.indexOf("| 200 rps | puma |"), md);
    assertTrue(md.contains("measured: bench: `/hello` keep-alive 200 rps, `/hello` keep-alive 10 rps"), md);
  }

  @Test
  void anH2TableShowsADashForTheServersWithoutHttp2AndNoRatiosWhenTheBaselineIsOneOfThem() throws Exception {
    Path file = out.resolve("h2.scenario");
    Files.writeString(file, """
        app bench {root}/bench/app/config.ru /health
        warmup bench 5s /hello h2
        closed-loop bench /hello keep-alive
        closed-loop bench /hello h2
        baseline puma8 puma
        server puma-plus puma-plus {puma_plus} -w 1 -t 5:5 {app}
        server puma puma puma -w 1 -t 5:5 {app}
        server puma8 puma ruby -I{puma8}/lib {puma8}/bin/puma -w 1 -t 5:5 {app}
        """);
    RoundScenario s = RoundScenario.parse(file);
    List<CellRun> runs = new ArrayList<>();
    for (RoundScenario.Cell cell : s.cells()) {
      for (Scenario.ServerSpec server : s.servers()) {
        if (!RoundScenario.speaks(server, cell.connection())) continue;
        boolean host = RoundScenario.hasHost(server);
        CpuAccount.Usage cpu = new CpuAccount.Usage(10_000_000_000L, host ? 4_000_000_000L : 0, 0);
        runs.add(new CellRun(server, 1, cell, WHOLE, 100_000, 0, Double.NaN, 6_000, 2, 3, 4, 5, cpu, host, host ? 85 * 1024 : -1, 120 * 1024, 3, 16,
            95, Double.NaN, "1 1 1", "1 1 1"));
      }
    }
    RoundReport.write(header(s, s.servers(), List.of()), runs, out);
    String md = Files.readString(out.resolve("summary.md"));
    String h2 = md.substring(md.indexOf("## bench `/hello`, closed loop, HTTP/2 cleartext (`h2load -t 1 -c 16 -m 1`)"), md.indexOf("## Every cell"));
    assertTrue(h2.contains("No ratio columns: the baseline, puma8, does not speak h2, so there is nothing to compare to."), h2);
    assertFalse(h2.contains("÷"), h2);
    assertTrue(h2.contains("| max (closed loop) | puma-plus | 6,000.0 | 40.0 µs | 60.0 µs | 100.0 µs | 2.00 ms |"), h2);
    assertTrue(h2.contains("| max (closed loop) | puma | —¹ |" + " — |".repeat(10) + "\n"), h2);
    assertTrue(h2.contains("| max (closed loop) | puma8 | —¹ |"), h2);
    assertTrue(h2.contains("¹ no HTTP/2: the server does not speak h2 and was not run on these cells."), h2);
    assertTrue(md.contains("- puma, puma8: no HTTP/2 (KIND puma or relay): skip the h2 warm-ups and cells"), md);
    assertTrue(md.contains("| max (closed loop) | puma8 | 6,000.0 | n/a | 100.0 µs | 100.0 µs | 2.00 ms | 3.00 ms | 4.00 ms | 5.00 ms | 0 | n/a "
        + "| 120 MB | — | — | — | — |"), "the keep-alive table keeps its ratios\n" + md);
    assertTrue(md.contains("warmed up closed-loop at full speed (`wrk -t 1 -c 16`, h2 lines `h2load -t 1 -c 16 -m 1`: bench: 5 s `/hello` h2)"), md);
    assertFalse(md.contains("the generator warms its own client"), "no open-loop cell, nothing to warm\n" + md);
  }

  @Test
  void aWindowedCellHasARowPerServerAndWindowAndItsFirstSecondsAgainstTheSameRoundsWarmWindow() throws Exception {
    Path file = out.resolve("fresh.scenario");
    Files.writeString(file, """
        name fresh
        rounds 2
        measure 120s
        pause 0s
        settle 0s
        app bench {root}/bench/app/config.ru /health
        open-loop bench /hello keep-alive 60 windows 10s 30s 60s
        server puma-plus puma-plus {puma_plus} -w 1 -t 5:5 {app}
        server puma-plus-noaot puma-plus env JAVA_TOOL_OPTIONS=-XX:AOTMode=off {puma_plus} -w 1 -t 5:5 {app}
        server puma puma puma -w 1 -t 5:5 {app}
        """);
    RoundScenario s = RoundScenario.parse(file);
    RoundScenario.Cell cell = s.cells().get(0);
    List<CellRun> runs = new ArrayList<>();
    List<RoundReport.Boot> boots = new ArrayList<>();
    for (int round = 1; round <= 2; round++) {
      for (Scenario.ServerSpec server : s.servers()) {
        boolean host = RoundScenario.hasHost(server);
        String aot = !host ? "" : server.name().equals("puma-plus") ? "AOT cache in use" : "AOT cache given, not in use";
        boots.add(new RoundReport.Boot(server.name(), round, round * 1_000_000_000L, aot));
        for (RoundScenario.Span span : cell.spans(s.measureNs())) {
          // 1,000 requests a span; CPU per request 300 µs (round 1) and 200 µs (round 2) until 30 s, warm 100 and 50 µs
          long perRequestUs = span.toNs() <= 30_000_000_000L ? 400 - 100L * round : span.fromNs() >= 60_000_000_000L ? 150 - 50L * round : 120;
          CpuAccount.Usage cpu = new CpuAccount.Usage(perRequestUs * 1_000_000L * 2, host ? perRequestUs * 1_000_000L : 0, 0);
          runs.add(new CellRun(server, round, cell, span, 1000, 0, 60, 60, 1, 2, perRequestUs / 100.0, 4, cpu, host, host ? 85 * 1024 : -1,
              120 * 1024, 3, 16, Double.NaN, 0.25, "1 1 1", "1 1 1"));
        }
      }
    }
    RoundReport.write(header(s, s.servers(), List.of(), boots), runs, out);
    String md = Files.readString(out.resolve("summary.md"));
    assertTrue(md.contains("## bench `/hello`, open loop, keep-alive (a pool of up to 16 connections), 60 rps in windows\n\n"
        + "One continuous run per server and round, split at 10 s, 30 s, 60 s; the last window, 60–120 s, is the warm one."), md);
    assertTrue(md.contains("| server | window | achieved rps | host CPU / request |"), md);
    assertTrue(md.contains("| puma-plus | 0–10 s | 60.0 [60.0–60.0] | 250.0 µs [200.0–300.0] | 250.0 µs [200.0–300.0] | 500.0 µs [400.0–600.0] |"), md);
    assertTrue(md.contains("| puma-plus | 30–60 s | 60.0 [60.0–60.0] | 120.0 µs [120.0–120.0] |"), md);
    assertTrue(md.contains("| puma-plus | 60–120 s (warm) | 60.0 [60.0–60.0] | 75.0 µs [50.0–100.0] |"), md);
    assertTrue(md.indexOf("| puma-plus | 60–120 s (warm)") < md.indexOf("| puma-plus-noaot | 0–10 s"), "one server's windows together\n" + md);
    assertFalse(md.contains("| puma-plus | 0–30 s |"), "a first stretch that is no window is not a window's row\n" + md);
    assertTrue(md.contains("| server | from the start | host CPU / request | host ÷ warm | tree CPU / request | tree ÷ warm | p99 | p99 ÷ warm |"), md);
    assertTrue(md.contains("| puma-plus | first 30 s | 250.0 µs [200.0–300.0] | 3.50× [3.00–4.00] | 500.0 µs [400.0–600.0] | 3.50× [3.00–4.00] "
        + "| 2.50 ms [2.00–3.00] | 3.50× [3.00–4.00] |"), "each round's own ratio (3 and 4), not the ratio of the medians (3.33)\n" + md);
    assertTrue(md.contains("| puma-plus | first 10 s |") && md.contains("| puma-plus | first 60 s |"), md);
    assertTrue(md.contains("| puma | first 30 s | n/a | n/a | 500.0 µs [400.0–600.0] | 3.50× [3.00–4.00] |"), "puma has no host\n" + md);
    assertTrue(md.contains("  - `puma-plus` (0.1.0; AOT cache in use; ready after 1.5 s [1.0–2.0]): `{puma_plus} -w 1 -t 5:5 {app}`"), md);
    assertTrue(md.contains("  - `puma-plus-noaot` (AOT cache given, not in use; ready after 1.5 s [1.0–2.0]): `env JAVA_TOOL_OPTIONS="), md);
    assertTrue(md.contains("  - `puma` (5.6.5; ready after 1.5 s [1.0–2.0])"), md);
    assertTrue(md.contains("Each server process: started (ready when its ready path answers 200, no settling after), no warm-up, then every "
        + "cell of its app in this order, no idle before them, 120 s measured: bench: `/hello` keep-alive 60 rps (in windows split at 10 s, "
        + "30 s, 60 s)"), md);
    assertTrue(md.contains("the first window counts from the moment the server answered its ready path"), md);
    assertTrue(md.contains("puma-plus round 2, bench /hello keep-alive 60 rps, 0–30 s: "), md);
  }

  @Test
  void theBaselineIsTheFirstOfTheListThatRanAndWithNoneThereAreNoRatios() {
    assertEquals(Optional.of("puma8"), RoundReport.baseline(List.of("puma8", "puma"), List.of("puma-plus", "puma", "puma8")));
    assertEquals(Optional.of("puma"), RoundReport.baseline(List.of("puma8", "puma"), List.of("puma-plus", "puma")));
    assertEquals(Optional.empty(), RoundReport.baseline(List.of("puma8", "puma"), List.of("puma-plus")));
    assertEquals("ratios: to puma, because puma8 is not in this run",
        RoundReport.baselineNote(List.of("puma8", "puma"), List.of("puma-plus", "puma"), List.of()), "left out with --only, not for want of --puma8");
    assertTrue(RoundReport.baselineNote(List.of("puma8", "puma"), List.of("puma-plus"), List.of()).startsWith("ratios: none"));
  }

  @Test
  void anOpenLoopCellsLineSaysHowLateTheGeneratorSentItsRequestsAndAClosedLoopOneDoesNot() throws Exception {
    Path file = out.resolve("lag.scenario");
    Files.writeString(file, """
        app bench {root}/bench/app/config.ru /health
        open-loop bench /hello keep-alive 50
        server puma puma puma {app}
        """);
    RoundScenario s = RoundScenario.parse(file);
    CellRun open = run(s, 0, 1, 300, 0, 1);
    assertTrue(open.line().contains("p99.9 4.00ms, send lag p99 250µs; CPU/request:"), open.line());
    CellRun closed = new CellRun(s.servers().get(0), 1, s.cells().get(0), WHOLE, 1000, 0, Double.NaN, 6_000, 2, 3, 4, 5,
        new CpuAccount.Usage(1_000_000L, 0, 0), false, -1, 30 * 1024, 2, 0, 95, Double.NaN, "1 1 1", "1 1 1");
    assertFalse(closed.line().contains("send lag"), closed.line());
  }

  /** The 50 rps cell of server {@code index}: 1,000 answered, {@code treeMs} and {@code hostMs} of CPU, p95/p99/p99.9 2/3/4 ms. */
  private static CellRun run(RoundScenario s, int index, int round, long treeMs, long hostMs, double p50Ms) {
    Scenario.ServerSpec server = s.servers().get(index);
    boolean host = RoundScenario.hasHost(server);
    CpuAccount.Usage cpu = new CpuAccount.Usage(treeMs * 1_000_000L, hostMs * 1_000_000L, 0);
    return new CellRun(server, round, s.cells().get(0), WHOLE, 1000, 0, 50.2, 48 + round, p50Ms, 2, 3, 4, cpu, host, host ? 85 * 1024 : -1,
        120 * 1024, 3, 16, Double.NaN, 0.25, "1.0 1.0 1.0", "1.1 1.0 1.0");
  }

  private static RoundReport.Header header(RoundScenario s, List<Scenario.ServerSpec> ran, List<Scenario.ServerSpec> skipped) {
    return header(s, ran, skipped, List.of());
  }

  private static RoundReport.Header header(RoundScenario s, List<Scenario.ServerSpec> ran, List<Scenario.ServerSpec> skipped,
      List<RoundReport.Boot> boots) {
    ZonedDateTime t = ZonedDateTime.of(2026, 12, 4, 15, 0, 0, 0, ZoneOffset.UTC);
    return new RoundReport.Header(s, "bench/run low --rounds 3", t, t.plusMinutes(5), "2 CPUs (Test CPU), Linux 6.1", "1", ran, skipped,
        Map.of("puma-plus", "0.1.0", "puma", "5.6.5", "puma8", "8.0.2"), boots, skipped.isEmpty() ? Path.of("/work/puma-8.0.2") : null,
        "cgroup v1 cpuacct (/sys/fs/cgroup/cpuacct), ns", "abc1234");
  }
}
