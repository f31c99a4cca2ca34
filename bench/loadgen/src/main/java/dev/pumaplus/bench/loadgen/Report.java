// Writes a scenario run's report into its results directory: summary.md (the table; medians when the
// scenario repeats; with a `dependency` line also the slow-dependency table, every run), timeline.txt (per
// second, every server of the first run), timeline.png (the plot), and the raw per-request CSV of every
// run. CPU is the server's whole process tree, percent of one core.
package dev.pumaplus.bench.loadgen;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

final class Report {
  private Report() {}

  /** One line per request: times in ms from the schedule's start, latency from the intended start. */
  static void writeRequests(LoadGenerator.Result result, Path file) throws IOException {
    try (BufferedWriter w = Files.newBufferedWriter(file)) {
      w.write("seq,kind,intended_ms,sent_ms,done_ms,latency_ms,status,outcome,bytes\n");
      for (List<RequestRecord> list : List.of(result.load(), result.probes())) {
        for (RequestRecord r : list) {
          w.write(String.format(Locale.ROOT, "%d,%s,%.3f,%s,%s,%s,%d,%s,%d%n", r.seq, r.kind.name().toLowerCase(Locale.ROOT),
              r.intendedNs / 1e6, r.sentNs < 0 ? "" : String.format(Locale.ROOT, "%.3f", r.sentNs / 1e6),
              r.doneNs < 0 ? "" : String.format(Locale.ROOT, "%.3f", r.doneNs / 1e6),
              r.doneNs < 0 ? "" : String.format(Locale.ROOT, "%.3f", r.latencyNs() / 1e6), r.status,
              r.outcome.name().toLowerCase(Locale.ROOT), r.bytes));
        }
      }
    }
  }

  /** {@code notRun}: a line for each server of the file that was left out (a puma 8 server without --puma8). */
  static void write(Scenario scenario, List<ScenarioRunner.Run> runs, List<String> notRun, Path out, String generatorCpus)
      throws IOException {
    Map<String, List<ScenarioRunner.Run>> byServer = ScenarioRunner.byServer(runs);
    StringBuilder md = new StringBuilder();
    md.append("# ").append(scenario.name()).append("\n\n");
    if (!scenario.description().isEmpty()) md.append(scenario.description()).append("\n\n");
    md.append(String.format(Locale.ROOT, "- load: GET `%s`, Poisson arrivals, steps %s, seed %d; %s; client timeout %s; SLO %s%n",
        scenario.path(), steps(scenario.schedule()), scenario.seed(), scenario.connection(), Format.ms(scenario.timeoutNs() / 1e6),
        Format.ms(scenario.sloNs() / 1e6)));
    if (scenario.warmup() != null) {
      md.append(String.format(Locale.ROOT, "- warm-up before every measured run: %s (not recorded)%n", steps(scenario.warmup())));
    }
    if (scenario.probe() != null) {
      md.append(String.format(Locale.ROOT, "- health probe: GET `%s` every %s on a new connection, failed after %s%n",
          scenario.probe().path(), Format.ms(scenario.probe().intervalNs() / 1e6), Format.ms(scenario.probe().timeoutNs() / 1e6)));
    }
    md.append(String.format(Locale.ROOT, "- servers pinned to CPU %d, generator on CPU(s) %s; %d run(s) per server%s%n",
        scenario.serverCpu(), generatorCpus, scenario.repeat(), scenario.repeat() > 1 ? ", table = medians" : ""));
    md.append("- load average (1/5/15 min) before/after each run: ");
    List<String> loads = new ArrayList<>();
    for (ScenarioRunner.Run r : runs) loads.add(r.server() + "#" + r.rep() + " " + r.loadBefore() + " / " + r.loadAfter());
    md.append(String.join("; ", loads)).append("\n");
    for (String line : notRun) md.append("- ").append(line).append('\n');
    md.append('\n');

    md.append("| server | offered rps | achieved rps | p50 | p99 | p99.9 | errors (timeouts) | above SLO | mem avg / peak | procs | CPU |");
    boolean probes = scenario.probe() != null;
    md.append(probes ? " probes failed |\n" : "\n");
    md.append("| --- | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: |").append(probes ? " --: |\n" : "\n");
    for (Map.Entry<String, List<ScenarioRunner.Run>> e : byServer.entrySet()) {
      List<RunStats> stats = e.getValue().stream().map(ScenarioRunner.Run::stats).toList();
      RunStats s = RunStats.median(stats);
      double memAvg = median(e.getValue().stream().mapToDouble(ScenarioRunner.Run::memAvgMb).toArray());
      double memPeak = median(e.getValue().stream().mapToDouble(ScenarioRunner.Run::memPeakMb).toArray());
      int procs = (int) median(e.getValue().stream().mapToDouble(ScenarioRunner.Run::processes).toArray());
      double cpu = median(e.getValue().stream().mapToDouble(ScenarioRunner.Run::cpuPercent).toArray());
      md.append(String.format(Locale.ROOT, "| %s | %.1f | %.1f | %s | %s | %s | %d (%d) | %.1f s | %.0f / %.0f MB | %d | %.0f%% |",
          e.getKey(), s.offeredRps(), s.achievedRps(), Format.ms(s.p50Ms()), Format.ms(s.p99Ms()), Format.ms(s.p999Ms()),
          s.errors(), s.timeouts(), s.sloExcessS(), memAvg, memPeak, procs, cpu));
      md.append(probes ? String.format(Locale.ROOT, " %d of %d |%n", s.probeFailures(), s.probes()) : "\n");
    }
    if (scenario.repeat() > 1) {
      md.append("\nSpread over the runs, (max − min) / median:\n\n| server | achieved rps | p50 | p99 |\n| --- | --: | --: | --: |\n");
      for (Map.Entry<String, List<ScenarioRunner.Run>> e : byServer.entrySet()) {
        List<RunStats> stats = e.getValue().stream().map(ScenarioRunner.Run::stats).toList();
        md.append(String.format(Locale.ROOT, "| %s | %.1f%% | %.1f%% | %.1f%% |%n", e.getKey(),
            100 * RunStats.spread(stats, RunStats::achievedRps), 100 * RunStats.spread(stats, RunStats::p50Ms),
            100 * RunStats.spread(stats, RunStats::p99Ms)));
      }
    }
    ratios(scenario.baseline(), byServer, md);
    if (scenario.schedule().steps().size() > 1) {
      md.append("\nBy step (requests whose intended start falls in the step; medians over the runs):\n\n");
      md.append("| server | step | nominal rps | offered rps | achieved rps | p50 | p99 | errors (timeouts) |\n");
      md.append("| --- | --: | --: | --: | --: | --: | --: | --: |\n");
      for (Map.Entry<String, List<ScenarioRunner.Run>> e : byServer.entrySet()) {
        for (int i = 0; i < scenario.schedule().steps().size(); i++) {
          int step = i;
          RunStats s = RunStats.median(e.getValue().stream().map(r -> r.steps().get(step)).toList());
          md.append(String.format(Locale.ROOT, "| %s | %d | %s | %.1f | %.1f | %s | %s | %d (%d) |%n", e.getKey(), step + 1,
              Format.num(s.nominalRps(), 0), s.offeredRps(), s.achievedRps(), Format.ms(s.p50Ms()), Format.ms(s.p99Ms()),
              s.errors(), s.timeouts()));
        }
      }
    }
    if (scenario.dependency() != null) dependency(scenario, runs, md);
    md.append("\nEvery run:\n\n```\n");
    for (ScenarioRunner.Run r : runs) md.append(r.server()).append(" #").append(r.rep()).append(": ").append(r.stats().line()).append('\n');
    md.append("```\n\nTimeline of the first run of each server: timeline.txt; plot: timeline.png; raw requests: *.requests.csv.\n");
    Files.writeString(out.resolve("summary.md"), md.toString());

    Map<String, Timeline> first = new LinkedHashMap<>();
    for (ScenarioRunner.Run r : runs) first.putIfAbsent(r.server(), r.timeline());
    StringBuilder text = new StringBuilder();
    for (Map.Entry<String, Timeline> e : first.entrySet()) {
      text.append(e.getKey()).append('\n');
      boolean dep = scenario.dependency() != null;
      text.append(String.format(Locale.ROOT, "%5s %8s %6s %7s %10s %10s %6s %6s %8s %10s %6s %6s %5s", "t", "offered", "sent", "rps",
          "p50", "p99", "errors", "procs", "mem MB", "queue_p95", "probeX", "conns", "cpu%"));
      text.append(dep ? String.format(Locale.ROOT, " %6s %9s %9s%n", "limit", "dep_infl", "dep_calls") : "\n");
      for (Timeline.Second s : e.getValue().seconds) {
        text.append(String.format(Locale.ROOT, "%4ds %8.0f %6d %7d %10s %10s %6d %6s %8s %10s %6d %6s %5s", s.t(), s.offeredRps(),
            s.sent(), s.ok(), Format.ms(s.p50Ms()), Format.ms(s.p99Ms()), s.errors(), s.processes() < 0 ? "-" : Integer.toString(s.processes()),
            Format.num(s.memoryMb(), 0), Double.isNaN(s.queueP95Ms()) ? "(n/a)" : Format.num(s.queueP95Ms(), 1), s.probeFailures(),
            s.connections() < 0 ? "-" : Integer.toString(s.connections()), Format.num(s.cpuPercent(), 0)));
        text.append(dep ? String.format(Locale.ROOT, " %6s %9s %9s%n", s.limit() < 0 ? "(n/a)" : Integer.toString(s.limit()),
            s.dependencyInFlight() < 0 ? "-" : Integer.toString(s.dependencyInFlight()),
            s.dependencyCalls() < 0 ? "-" : Long.toString(s.dependencyCalls())) : "\n");
      }
      text.append('\n');
    }
    Files.writeString(out.resolve("timeline.txt"), text.toString());
    if (!first.isEmpty()) {
      Plots.write(scenario.name() + ": " + scenario.path() + ", " + steps(scenario.schedule()), first, out.resolve("timeline.png"));
    }
  }

  /**
   * Each server's p99, peak memory and CPU divided by the baseline's in the same round (repetition), so that
   * a machine that is slower in one round than in another moves both sides of a ratio: median [range].
   */
  private static void ratios(String baseline, Map<String, List<ScenarioRunner.Run>> byServer, StringBuilder md) {
    List<ScenarioRunner.Run> base = baseline == null ? null : byServer.get(baseline);
    if (base == null) return;
    md.append("\nRatios to ").append(baseline).append(" in the same round, median [lowest–highest]:\n\n");
    md.append("| server | p99 ÷ | peak memory ÷ | CPU ÷ | rounds |\n| --- | --: | --: | --: | --: |\n");
    for (Map.Entry<String, List<ScenarioRunner.Run>> e : byServer.entrySet()) {
      if (e.getKey().equals(baseline)) continue;
      List<double[]> paired = new ArrayList<>();
      for (ScenarioRunner.Run run : e.getValue()) {
        base.stream().filter(b -> b.rep() == run.rep()).findFirst().ifPresent(b -> paired.add(new double[] {
            run.stats().p99Ms() / b.stats().p99Ms(), run.memPeakMb() / b.memPeakMb(), run.cpuPercent() / b.cpuPercent()}));
      }
      md.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %d |%n", e.getKey(), Spread.of(paired, r -> r[0]).format(2, ""),
          Spread.of(paired, r -> r[1]).format(2, ""), Spread.of(paired, r -> r[2]).format(2, ""), paired.size()));
    }
  }

  /**
   * The slow-dependency table: one row per server per run (no medians: whether the limit settled is a
   * property of each run), then the limit's trace second by second.
   */
  private static void dependency(Scenario scenario, List<ScenarioRunner.Run> runs, StringBuilder md) {
    Scenario.Dependency dep = scenario.dependency();
    DependencyStats any = runs.stream().map(ScenarioRunner.Run::dependency).filter(d -> d != null).findFirst().orElse(null);
    md.append(String.format(Locale.ROOT, "%n## The slow dependency%n%n- dependency: %d calls at once, each held %s, the rest wait FIFO:"
        + " capacity %.0f calls/s%n", dep.concurrency(), Format.ms(dep.holdNs() / 1e6), dep.capacityPerSecond()));
    if (any == null) return;
    md.append(String.format(Locale.ROOT, "- overload step: step %d (%.0f–%.0f s of the schedule). \"settled\": seconds from its start until"
            + " the concurrency limit entered %d–%d and stayed there to its end (the range it then held). Goodput: OK answers per second"
            + " that ended from %.0f s into the step to its end (each made one dependency call), and the dependency's own completed calls"
            + " per second then; p99 of the OK answers to requests sent in the step; errors over the whole run; peak: most calls in"
            + " the dependency at once (held + waiting) during the measured run.%n%n", any.overloadStep(), any.stepStartS(),
        any.stepEndS(), any.bandLow(), any.bandHigh(), Math.min(DependencyStats.CONVERGE_NS, (any.stepEndS() - any.stepStartS()) * 5e8) / 1e9));
    md.append("| server | run | settled | goodput rps | ÷ capacity | dependency calls/s | p99 OK (step) | 503 shed | other HTTP | timeouts |"
        + " broken | peak in flight |\n");
    md.append("| --- | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: |\n");
    for (ScenarioRunner.Run r : runs) {
      DependencyStats d = r.dependency();
      if (d == null) continue;
      md.append(String.format(Locale.ROOT, "| %s | %d | %s | %.0f | %.2f | %s | %s | %d | %d | %d | %d | %d |%n", r.server(), r.rep(),
          d.settleText(), d.goodputRps(), d.goodputRps() / d.capacityRps(), Format.num(d.dependencyRps(), 0), Format.ms(d.p99OkMs()),
          d.shed503(), d.otherHttp(), d.timeouts(), d.connectionErrors(), d.peakInFlight()));
    }
    md.append("\nThe concurrency limit second by second (/stats `queue.concurrency_limit`; value×seconds):\n\n```\n");
    for (ScenarioRunner.Run r : runs) {
      if (r.dependency() != null && r.dependency().hasLimit()) {
        md.append(r.server()).append(" #").append(r.rep()).append(": ").append(r.dependency().limitTrace()).append('\n');
      }
    }
    md.append("```\n");
  }

  private static String steps(RateSchedule schedule) {
    List<String> parts = new ArrayList<>();
    for (RateSchedule.Step step : schedule.steps()) {
      parts.add(String.format(Locale.ROOT, "%s rps for %s", Format.num(step.rps(), step.rps() % 1 == 0 ? 0 : 1), Format.ms(step.durationNs() / 1e6)));
    }
    return String.join(" → ", parts);
  }

  private static double median(double[] values) {
    return Spread.of(values).median();
  }
}
