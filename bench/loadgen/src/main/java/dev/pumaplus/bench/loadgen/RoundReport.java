// Writes a round benchmark's summary.md (RoundRunner): a header that says how the numbers were made (the
// command, dates, machine, servers and what was not run, warm-up, the order the cells ran in, CPU source),
// one table per app, path and connection mode with a row per rate (lowest first) and server, every figure the
// median over the rounds with its range, and ratios to the baseline server (a server that does not speak the
// connection, puma and h2, shows "—" and is no baseline); then every measured cell on one line.
package dev.pumaplus.bench.loadgen;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

final class RoundReport {
  private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'");

  /**
   * How the run was made. {@code servers}: those that ran, in order; {@code skipped}: those left out (a
   * puma 8 server without --puma8); {@code versions}: what each server's log named at boot; {@code puma8}:
   * the directory given, or null; {@code cpuSource}: CpuAccount's words; {@code revision}: the repository's commit.
   */
  record Header(RoundScenario scenario, String commandLine, ZonedDateTime started, ZonedDateTime ended, String machine,
      String generatorCpus, List<Scenario.ServerSpec> servers, List<Scenario.ServerSpec> skipped, Map<String, String> versions, Path puma8,
      String cpuSource, String revision) {}

  private RoundReport() {}

  /** One line per server left out, for the console and the report: a puma 8 server without --puma8 DIR. */
  static List<String> notRun(List<Scenario.ServerSpec> skipped) {
    return skipped.stream().map(s -> s.name() + ": NOT RUN: no --puma8 DIR was given (its command runs puma 8 from that directory; "
        + "docs/BENCHMARKS.md, \"puma 8.0.2\", says how to build it)").toList();
  }

  /** The server the ratios are to: the first of {@code baselines} that ran. */
  static Optional<String> baseline(List<String> baselines, List<String> ran) {
    return baselines.stream().filter(ran::contains).findFirst();
  }

  /** What the ratio columns are to, and why when it is not the first baseline choice. */
  static String baselineNote(List<String> baselines, List<String> ran, List<Scenario.ServerSpec> skipped) {
    Optional<String> base = baseline(baselines, ran);
    if (base.isEmpty()) return "ratios: none (no server of the scenario's baseline list " + baselines + " ran)";
    List<String> passedOver = baselines.subList(0, baselines.indexOf(base.get()));
    if (passedOver.isEmpty()) return "ratios: to " + base.get();
    List<String> why = new ArrayList<>();
    for (String name : passedOver) {
      why.add(name + (skipped.stream().anyMatch(s -> s.name().equals(name)) ? " was not run" : " is not in this run"));
    }
    return "ratios: to " + base.get() + ", because " + String.join(" and ", why);
  }

  static void write(Header h, List<CellRun> runs, Path out) throws IOException {
    RoundScenario s = h.scenario();
    List<String> ran = h.servers().stream().map(Scenario.ServerSpec::name).toList();
    Optional<String> base = baseline(s.baselines(), ran);
    StringBuilder md = new StringBuilder();
    md.append("# ").append(s.name()).append("\n\n");
    if (!s.description().isEmpty()) md.append(s.description()).append("\n\n");
    md.append("- command: `").append(h.commandLine()).append("`\n");
    md.append("- date: ").append(h.started().format(WHEN)).append(" to ").append(h.ended().format(WHEN))
        .append("; puma-plus at ").append(h.revision()).append('\n');
    md.append("- machine: ").append(h.machine()).append(String.format(Locale.ROOT, "; servers on CPU %d, the generator and wrk on CPU(s) %s%n",
        s.serverCpu(), h.generatorCpus()));
    md.append("- servers, in this order in every round, each a fresh process per app and round:\n");
    for (Scenario.ServerSpec server : h.servers()) {
      String command = server.command().replace("{puma8}", h.puma8() == null ? "{puma8}" : h.puma8().toString());
      String version = h.versions().getOrDefault(server.name(), "");
      md.append("  - `").append(server.name()).append('`').append(version.isEmpty() ? "" : " (" + version + ")").append(": `")
          .append(command).append('`')
          .append(server.kind().equals("null") ? ": the harness's null server, which answers at once and does nothing: its rows are "
              + "the client's own ceiling" : "").append('\n');
    }
    for (String note : notRun(h.skipped())) md.append("  - **").append(note).append("**\n");
    md.append("- ").append(baselineNote(s.baselines(), ran, h.skipped())).append(" (median over median)\n");
    md.append(String.format(Locale.ROOT, "- %d round(s). Each server process: started (ready when its ready path answers 200, then its "
        + "process count still for 1 s), warmed up closed-loop at full speed (`wrk -t %d -c %d`%s: %s), then every cell of its app in this "
        + "order, %s of idle before each, %s measured: %s%n", s.rounds(), s.wrkThreads(), s.wrkConnections(),
        s.warmups().stream().anyMatch(w -> w.connection() == RoundScenario.Connection.H2) ? ", h2 lines `" + h2load(s) + "`" : "", warmups(s),
        Format.seconds(s.pauseNs()), Format.seconds(s.measureNs()), runOrder(s)));
    md.append("- open-loop cells: Poisson arrivals at the rate (the same arrival times for every server of a round), latency from each "
        + "request's intended start; keep-alive = a router-like pool of up to ").append(s.pool())
        .append(" connections, new = a new connection per request, h2 = HTTP/2 cleartext (prior knowledge), streams round-robin over ")
        .append(s.h2Connections()).append(" connections; closed-loop cells: wrk at full speed (h2: h2load), their service times. ")
        .append("Timeout ").append(Format.seconds(s.timeoutNs())).append(", counted as an error\n");
    md.append("- CPU per request: what the server used over the cell's window divided by the requests answered in it. Tree: ")
        .append(h.cpuSource()).append("; host: the Java host's threads' own time (`/proc/HOSTPID/task/*/schedstat`, ns); "
            + "Ruby = tree − host (puma: the whole tree)\n");
    md.append("- memory as the cell ended: host RSS (`VmRSS`), tree PSS (`smaps_rollup`, summed over the server's processes)\n");
    List<String> noH2 = h.servers().stream().filter(x -> !RoundScenario.speaks(x, RoundScenario.Connection.H2))
        .map(Scenario.ServerSpec::name).toList();
    boolean h2Cells = s.cells().stream().anyMatch(c -> c.connection() == RoundScenario.Connection.H2);
    if (h2Cells && !noH2.isEmpty()) {
      md.append("- ").append(String.join(", ", noH2)).append(": no HTTP/2 (KIND puma): skip the h2 warm-ups and cells, \"—\" in their rows\n");
    }
    md.append("- every figure: the median over the rounds [lowest–highest]\n\n");

    Map<String, List<CellRun>> groups = new LinkedHashMap<>();
    for (RoundScenario.Cell cell : s.cells()) groups.put(group(cell), new ArrayList<>());
    for (CellRun r : runs) groups.get(group(r.cell())).add(r);
    for (Map.Entry<String, List<CellRun>> g : groups.entrySet()) {
      if (g.getValue().isEmpty()) continue;
      RoundScenario.Cell first = g.getValue().get(0).cell();
      md.append("## ").append(first.app()).append(" `").append(first.path()).append("`, ").append(connection(s, first)).append("\n\n");
      String b = base.filter(name -> h.servers().stream().anyMatch(x -> x.name().equals(name) && RoundScenario.speaks(x, first.connection())))
          .orElse(null);
      if (base.isPresent() && b == null) {
        md.append("No ratio columns: the baseline, ").append(base.get()).append(", does not speak ").append(first.connection().word)
            .append(", so there is nothing to compare to.\n\n");
      }
      md.append("| rate | server | achieved rps | host CPU / request | Ruby CPU / request | tree CPU / request | p50 | p95 | p99 | p99.9 "
          + "| errors | host RSS | tree PSS |");
      if (b != null) md.append(" rps ÷ ").append(b).append(" | tree CPU ÷ ").append(b).append(" | p50 ÷ ").append(b).append(" | p99 ÷ ").append(b).append(" |");
      md.append("\n| --: | --- | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: |");
      if (b != null) md.append(" --: | --: | --: | --: |");
      md.append('\n');
      List<RoundScenario.Cell> rows = s.cells().stream().filter(c -> group(c).equals(g.getKey()))
          .sorted(Comparator.comparingDouble(RoundScenario.Cell::rps)).toList();
      boolean skipped = false;
      for (RoundScenario.Cell cell : rows) {
        List<CellRun> baseRuns = b == null ? List.of() : runs(runs, cell, b);
        for (Scenario.ServerSpec server : h.servers()) {
          if (!RoundScenario.speaks(server, cell.connection())) {
            md.append("| ").append(cell.rate()).append(" | ").append(server.name()).append(" | ").append(notSpoken(b != null)).append('\n');
            skipped = true;
            continue;
          }
          List<CellRun> rs = runs(runs, cell, server.name());
          if (rs.isEmpty()) continue;
          md.append("| ").append(cell.rate()).append(" | ").append(server.name()).append(" | ").append(row(rs));
          if (b != null) {
            md.append(' ').append(String.join(" | ", ratios(rs, baseRuns, server.name().equals(b)))).append(" |");
          }
          md.append('\n');
        }
      }
      if (skipped) md.append("\n¹ no HTTP/2: the server does not speak ").append(first.connection().word).append(" and was not run on these cells.\n");
      md.append('\n');
    }

    md.append("## Every cell\n\n```\n");
    for (CellRun r : runs) {
      md.append(r.server().name()).append(" round ").append(r.round()).append(", ").append(r.cell().label()).append(": ").append(r.line()).append('\n');
    }
    md.append("```\n\nServer logs: `<server>-<app>-r<round>.server.log`; wrk's and h2load's own output: `.warmup<N>.wrk.txt`, "
        + "`.warmup<N>.h2load.txt` (warm-ups), `-<cell>.wrk.txt`, `-<cell>.h2load.txt` (closed-loop cells); the scenario as run: `scenario.txt`.\n");
    Files.writeString(out.resolve("summary.md"), md.toString());
  }

  /** The cells of a row: one per round in which {@code server} measured {@code cell}. */
  private static List<CellRun> runs(List<CellRun> runs, RoundScenario.Cell cell, String server) {
    return runs.stream().filter(r -> r.cell().equals(cell) && r.server().name().equals(server)).toList();
  }

  /** A row's figures from "achieved rps" to "tree PSS", each the median over the rounds with its range. */
  static String row(List<CellRun> rs) {
    List<String> cells = List.of(
        Spread.of(rs, CellRun::achievedRps).format(1, ""),
        Spread.of(rs, CellRun::hostUs).format(1, "µs"),
        Spread.of(rs, CellRun::rubyUs).format(1, "µs"),
        Spread.of(rs, CellRun::treeUs).format(1, "µs"),
        Spread.of(rs, CellRun::p50Ms).latency(),
        Spread.of(rs, CellRun::p95Ms).latency(),
        Spread.of(rs, CellRun::p99Ms).latency(),
        Spread.of(rs, CellRun::p999Ms).latency(),
        Spread.of(rs, r -> r.errors()).format(0, ""),
        Spread.of(rs, r -> r.hasHost() ? r.hostRssKb() / 1024.0 : Double.NaN).format(0, "MB"),
        Spread.of(rs, r -> r.treePssKb() / 1024.0).format(0, "MB"));
    return String.join(" | ", cells) + " |";
  }

  /** A row's cells from "achieved rps" on for a server that did not run the cell: it does not speak its connection. */
  static String notSpoken(boolean ratioColumns) {
    return "—¹ |" + " — |".repeat(10 + (ratioColumns ? 4 : 0));
  }

  /** The ratio columns of a row against the baseline's row of the same cell: "—" for the baseline itself. */
  static List<String> ratios(List<CellRun> rs, List<CellRun> baseRuns, boolean isBase) {
    List<ToDoubleFunction<CellRun>> metrics = List.of(CellRun::achievedRps, CellRun::treeUs, CellRun::p50Ms, CellRun::p99Ms);
    List<String> cells = new ArrayList<>();
    for (ToDoubleFunction<CellRun> metric : metrics) {
      if (isBase) {
        cells.add("—");
        continue;
      }
      double ratio = Spread.of(rs, metric).median() / Spread.of(baseRuns, metric).median();
      cells.add(Double.isNaN(ratio) || Double.isInfinite(ratio) ? "n/a" : String.format(Locale.ROOT, "%.2f×", ratio));
    }
    return cells;
  }

  private static String group(RoundScenario.Cell cell) {
    return cell.app() + " " + cell.path() + " " + cell.connection().word + " " + (cell.closedLoop() ? "closed" : "open");
  }

  private static String connection(RoundScenario s, RoundScenario.Cell cell) {
    if (cell.closedLoop()) {
      return switch (cell.connection()) {
        case KEEP_ALIVE -> "closed loop, keep-alive (`wrk -c " + s.wrkConnections() + "`)";
        case NEW -> "closed loop, a new connection per request (`wrk -c " + s.wrkConnections() + " -H 'Connection: close'`)";
        case H2 -> "closed loop, HTTP/2 cleartext (`" + h2load(s) + "`)";
      };
    }
    return switch (cell.connection()) {
      case KEEP_ALIVE -> "open loop, keep-alive (a pool of up to " + s.pool() + " connections)";
      case NEW -> "open loop, a new connection per request";
      case H2 -> "open loop, HTTP/2 cleartext (streams round-robin over " + s.h2Connections() + " connections)";
    };
  }

  /** The h2 closed-loop client's command as the report names it. */
  private static String h2load(RoundScenario s) {
    return "h2load -t " + s.wrkThreads() + " -c " + s.wrkConnections() + " -m 1";
  }

  /** "bench: /hello keep-alive 1000 rps, /hello keep-alive 200 rps, ...; rails: ...": the cells in the order they run. */
  private static String runOrder(RoundScenario s) {
    List<String> parts = new ArrayList<>();
    for (RoundScenario.App app : s.measuredApps()) {
      parts.add(app.name() + ": " + String.join(", ", s.cells().stream().filter(c -> c.app().equals(app.name()))
          .map(c -> "`" + c.path() + "` " + c.connection().word + " " + c.rate()).toList()));
    }
    return String.join("; ", parts);
  }

  private static String warmups(RoundScenario s) {
    List<String> parts = new ArrayList<>();
    for (RoundScenario.App app : s.measuredApps()) {
      List<String> lines = s.warmups().stream().filter(w -> w.app().equals(app.name()))
          .map(w -> Format.seconds(w.durationNs()) + " `" + w.path() + "` " + w.connection().word).toList();
      parts.add(app.name() + ": " + (lines.isEmpty() ? "none" : String.join(", then ", lines)));
    }
    return String.join("; ", parts);
  }
}
