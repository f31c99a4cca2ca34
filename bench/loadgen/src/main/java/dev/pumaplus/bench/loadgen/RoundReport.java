// Writes a round benchmark's summary.md (RoundRunner): a header that says how the numbers were made (the
// command, dates, machine, servers, their boots and what was not run, warm-up, the order the cells ran in, CPU
// source), one table per app, path and connection mode with a row per rate (lowest first) and server, every
// figure the median over the rounds with its range, and ratios to the baseline server (a server that does not
// speak the connection, puma and h2, shows "—" and is no baseline); a windowed cell's tables instead: a row per
// server and window, and its first seconds against its warm window; then every measured cell on one line.
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
   * puma 8 server without --puma8); {@code versions}: what each server's log named at boot; {@code boots}:
   * every start of every server; {@code puma8}:
   * the directory given, or null; {@code cpuSource}: CpuAccount's words; {@code revision}: the repository's commit.
   */
  record Header(RoundScenario scenario, String commandLine, ZonedDateTime started, ZonedDateTime ended, String machine,
      String generatorCpus, List<Scenario.ServerSpec> servers, List<Scenario.ServerSpec> skipped, Map<String, String> versions,
      List<Boot> boots, Path puma8, String cpuSource, String revision) {}

  /**
   * One start of a server: {@code readyNs} from its command's start to its ready path's first 200 (polled
   * every 100 ms); {@code hostAot}: RoundRunner.hostAot's words for a server with a host, else "".
   */
  record Boot(String server, int round, long readyNs, String hostAot) {}

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
    if (baselines.isEmpty()) return "ratios between servers: none (the scenario names no baseline)";
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
    md.append("- servers, in this order in every round, each a fresh process per app and round (its version, its host's AOT cache, "
        + "the time from its start to its ready path's first 200, polled every 100 ms):\n");
    for (Scenario.ServerSpec server : h.servers()) {
      String command = server.command().replace("{puma8}", h.puma8() == null ? "{puma8}" : h.puma8().toString());
      md.append("  - `").append(server.name()).append('`').append(boot(server, h)).append(": `").append(command).append('`')
          .append(server.kind().equals("null") ? ": the harness's null server, which answers at once and does nothing: its rows are "
              + "the client's own ceiling" : server.kind().equals("relay") ? ": the C relay (bench/floor/relay.c), a front that "
              + "passes each request to a worker process answering /hello: its rows are this machine's floor for a two-process "
              + "server (host = the relay, Ruby = its worker)" : "").append('\n');
    }
    for (String note : notRun(h.skipped())) md.append("  - **").append(note).append("**\n");
    md.append("- ").append(baselineNote(s.baselines(), ran, h.skipped())).append(base.isPresent() ? " (median over median)\n" : "\n");
    md.append(String.format(Locale.ROOT, "- %d round(s). Each server process: %s, %s, then every cell of its app in this order, %s, %s "
        + "measured: %s%n", s.rounds(), started(s), warmedUp(s), s.pauseNs() > 0 ? Format.seconds(s.pauseNs()) + " of idle before each"
        : "no idle before them", Format.seconds(s.measureNs()), runOrder(s)));
    md.append("- open-loop cells: Poisson arrivals at the rate (the same arrival times for every server of a round), latency from each "
        + "request's intended start; keep-alive = a router-like pool of up to ").append(s.pool())
        .append(" connections, new = a new connection per request, h2 = HTTP/2 cleartext (prior knowledge), streams round-robin over ")
        .append(s.h2Connections()).append(" connections; closed-loop cells: wrk at full speed (h2: h2load), their service times. ")
        .append("Timeout ").append(Format.seconds(s.timeoutNs())).append(", counted as an error")
        .append(s.cells().stream().anyMatch(c -> !c.closedLoop() && c.connection() != RoundScenario.Connection.H2)
            ? ". Before the first round the generator warms its own client, with no server of the run: "
                + Format.seconds(RoundRunner.GENERATOR_WARMUP_NS) + " per HTTP/1.1 connection kind of the open-loop cells, at their "
                + String.format(Locale.ROOT, "highest rate (at most %,.0f rps), to a responder in its own process that answers after 10 ms",
                    RoundRunner.GENERATOR_WARMUP_MAX_RPS)
            : "").append('\n');
    if (s.cells().stream().anyMatch(RoundScenario.Cell::windowed)) {
      md.append("- windowed cells: one continuous run of arrivals, split for the report by each request's intended start (when the "
          + "generator was to send it); the server's CPU and memory read as the run starts, at each split (from a second thread, on "
          + "time) and once its last request has ended; the last window is the warm one. `÷ warm`: each round's own ratio (the same "
          + "process's first seconds over its warm window), the median over the rounds [lowest–highest]");
      if (measuredFromReady(s)) {
        md.append(". No settling, warm-up or idle: the first window counts from the moment the server answered its ready path "
            + "(its first CPU reading is taken a few ms after that answer)");
      }
      md.append('\n');
    }
    md.append("- CPU per request: what the server used over the cell's window divided by the requests answered in it. Tree: ")
        .append(h.cpuSource()).append("; host: the Java host's threads' own time (`/proc/HOSTPID/task/*/schedstat`, ns; the relay: its "
            + "one thread); Ruby = tree − host (puma: the whole tree)\n");
    md.append("- memory as the cell ended: host RSS (`VmRSS`), tree PSS (`smaps_rollup`, summed over the server's processes)\n");
    List<String> noH2 = h.servers().stream().filter(x -> !RoundScenario.speaks(x, RoundScenario.Connection.H2))
        .map(Scenario.ServerSpec::name).toList();
    boolean h2Cells = s.cells().stream().anyMatch(c -> c.connection() == RoundScenario.Connection.H2);
    if (h2Cells && !noH2.isEmpty()) {
      md.append("- ").append(String.join(", ", noH2)).append(": no HTTP/2 (KIND puma or relay): skip the h2 warm-ups and cells, \"—\" in their rows\n");
    }
    md.append("- every figure: the median over the rounds [lowest–highest]\n\n");

    Map<String, List<CellRun>> groups = new LinkedHashMap<>();
    for (RoundScenario.Cell cell : s.cells()) groups.put(group(cell), new ArrayList<>());
    for (CellRun r : runs) groups.get(group(r.cell())).add(r);
    for (Map.Entry<String, List<CellRun>> g : groups.entrySet()) {
      if (g.getValue().isEmpty()) continue;
      RoundScenario.Cell first = g.getValue().get(0).cell();
      if (first.windowed()) {
        windowTables(md, h, first, g.getValue());
      } else {
        matrixTable(md, h, base, s.cells().stream().filter(c -> group(c).equals(g.getKey())).toList(), runs);
      }
    }

    md.append("## Every cell\n\n```\n");
    for (CellRun r : runs) {
      md.append(r.server().name()).append(" round ").append(r.round()).append(", ").append(r.cell().label())
          .append(r.cell().windowed() ? ", " + r.span().label() : "").append(": ").append(r.line()).append('\n');
    }
    md.append("```\n\nServer logs: `<server>-<app>-r<round>.server.log`; wrk's and h2load's own output: `.warmup<N>.wrk.txt`, "
        + "`.warmup<N>.h2load.txt` (warm-ups), `-<cell>.wrk.txt`, `-<cell>.h2load.txt` (closed-loop cells); the scenario as run: `scenario.txt`.\n");
    Files.writeString(out.resolve("summary.md"), md.toString());
  }

  /**
   * The table of an app, path and connection mode: a row per rate (lowest first) and server, with ratio
   * columns to the baseline when it speaks the connection.
   */
  private static void matrixTable(StringBuilder md, Header h, Optional<String> base, List<RoundScenario.Cell> cells, List<CellRun> runs) {
    RoundScenario.Cell first = cells.get(0);
    md.append("## ").append(first.app()).append(" `").append(first.path()).append("`, ").append(connection(h.scenario(), first)).append("\n\n");
    String b = base.filter(name -> h.servers().stream().anyMatch(x -> x.name().equals(name) && RoundScenario.speaks(x, first.connection())))
        .orElse(null);
    if (base.isPresent() && b == null) {
      md.append("No ratio columns: the baseline, ").append(base.get()).append(", does not speak ").append(first.connection().word)
          .append(", so there is nothing to compare to.\n\n");
    }
    md.append("| rate | server | ").append(FIGURES);
    if (b != null) md.append(" rps ÷ ").append(b).append(" | tree CPU ÷ ").append(b).append(" | p50 ÷ ").append(b).append(" | p99 ÷ ").append(b).append(" |");
    md.append("\n| --: | --- |").append(" --: |".repeat(11));
    if (b != null) md.append(" --: | --: | --: | --: |");
    md.append('\n');
    boolean skipped = false;
    for (RoundScenario.Cell cell : cells.stream().sorted(Comparator.comparingDouble(RoundScenario.Cell::rps)).toList()) {
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
    if (skipped) md.append('\n').append(noHttp2(first));
    md.append('\n');
  }

  /**
   * A windowed cell's two tables: each window's row per server (the last one warm), then each first stretch
   * (0 to a split) against the warm window of the same round.
   */
  private static void windowTables(StringBuilder md, Header h, RoundScenario.Cell cell, List<CellRun> runs) {
    RoundScenario s = h.scenario();
    List<RoundScenario.Span> windows = cell.windows(s.measureNs());
    RoundScenario.Span warm = windows.get(windows.size() - 1);
    md.append("## ").append(cell.app()).append(" `").append(cell.path()).append("`, ").append(connection(s, cell)).append(", ")
        .append(cell.rate()).append(" in windows\n\n");
    md.append("One continuous run per server and round, split at ")
        .append(String.join(", ", cell.windowsNs().stream().map(Format::seconds).toList())).append("; the last window, ")
        .append(warm.label()).append(", is the warm one.\n\n");
    md.append("| server | window | ").append(FIGURES).append("\n| --- | --- |").append(" --: |".repeat(11)).append('\n');
    boolean skipped = false;
    for (Scenario.ServerSpec server : h.servers()) {
      if (!RoundScenario.speaks(server, cell.connection())) {
        md.append("| ").append(server.name()).append(" | all | ").append(notSpoken(false)).append('\n');
        skipped = true;
        continue;
      }
      for (RoundScenario.Span window : windows) {
        List<CellRun> rs = runs(runs, cell, window, server.name());
        if (rs.isEmpty()) continue;
        md.append("| ").append(server.name()).append(" | ").append(window.label()).append(window.equals(warm) ? " (warm)" : "").append(" | ")
            .append(row(rs)).append('\n');
      }
    }
    md.append("\n| server | from the start | host CPU / request | host ÷ warm | tree CPU / request | tree ÷ warm | p99 | p99 ÷ warm |\n"
        + "| --- | --- | --: | --: | --: | --: | --: | --: |\n");
    for (Scenario.ServerSpec server : h.servers()) {
      if (!RoundScenario.speaks(server, cell.connection())) {
        md.append("| ").append(server.name()).append(" | all | —¹ |").append(" — |".repeat(5)).append('\n');
        continue;
      }
      List<CellRun> warmRuns = runs(runs, cell, warm, server.name());
      for (RoundScenario.Span first : cell.firsts()) {
        List<CellRun> rs = runs(runs, cell, first, server.name());
        if (rs.isEmpty()) continue;
        md.append("| ").append(server.name()).append(" | first ").append(Format.seconds(first.toNs())).append(" | ")
            .append(Spread.of(rs, CellRun::hostUs).format(1, "µs")).append(" | ").append(toWarm(rs, warmRuns, CellRun::hostUs)).append(" | ")
            .append(Spread.of(rs, CellRun::treeUs).format(1, "µs")).append(" | ").append(toWarm(rs, warmRuns, CellRun::treeUs)).append(" | ")
            .append(Spread.of(rs, CellRun::p99Ms).latency()).append(" | ").append(toWarm(rs, warmRuns, CellRun::p99Ms)).append(" |\n");
      }
    }
    if (skipped) md.append('\n').append(noHttp2(cell));
    md.append('\n');
  }

  /**
   * "1.52× [1.31–1.80]": over the rounds, each round's {@code metric} of {@code rs} over the same round's of
   * {@code warmRuns} (the same process's warm window); the median and range of those ratios.
   */
  static String toWarm(List<CellRun> rs, List<CellRun> warmRuns, ToDoubleFunction<CellRun> metric) {
    List<Double> ratios = new ArrayList<>();
    for (CellRun r : rs) {
      warmRuns.stream().filter(w -> w.round() == r.round()).findFirst().ifPresent(w -> ratios.add(metric.applyAsDouble(r) / metric.applyAsDouble(w)));
    }
    Spread spread = Spread.of(ratios.stream().mapToDouble(Double::doubleValue).filter(Double::isFinite).toArray());
    if (spread.n() == 0) return "n/a";
    String median = String.format(Locale.ROOT, "%.2f×", spread.median());
    return spread.n() == 1 ? median : median + String.format(Locale.ROOT, " [%.2f–%.2f]", spread.min(), spread.max());
  }

  private static String noHttp2(RoundScenario.Cell cell) {
    return "¹ no HTTP/2: the server does not speak " + cell.connection().word + " and was not run on these cells.\n";
  }

  /**
   * " (0.1.0; AOT cache in use; ready 1.2 s [1.1–1.4])": what the server's boot log named, whether its host
   * mapped an AOT cache (per round when that changed), and how long it took to answer.
   */
  private static String boot(Scenario.ServerSpec server, Header h) {
    List<String> parts = new ArrayList<>();
    String version = h.versions().getOrDefault(server.name(), "");
    if (!version.isEmpty()) parts.add(version);
    List<Boot> boots = h.boots().stream().filter(b -> b.server().equals(server.name())).toList();
    Map<String, List<Integer>> aot = new LinkedHashMap<>();
    for (Boot b : boots) if (!b.hostAot().isEmpty()) aot.computeIfAbsent(b.hostAot(), k -> new ArrayList<>()).add(b.round());
    if (aot.size() == 1) parts.add(aot.keySet().iterator().next());
    else aot.forEach((status, rounds) -> parts.add(status + " in round(s) " + rounds.stream().map(String::valueOf).reduce((a, c) -> a + ", " + c).orElse("")));
    if (!boots.isEmpty()) parts.add("ready after " + Spread.of(boots, b -> b.readyNs() / 1e9).format(1, "s"));
    return parts.isEmpty() ? "" : " (" + String.join("; ", parts) + ")";
  }

  /** "started (...)": how a server process was taken as up. */
  private static String started(RoundScenario s) {
    return s.settleNs() > 0
        ? "started (ready when its ready path answers 200, then its process count still for " + Format.seconds(s.settleNs()) + ")"
        : "started (ready when its ready path answers 200, no settling after)";
  }

  private static String warmedUp(RoundScenario s) {
    if (s.measuredApps().stream().noneMatch(a -> s.warmups().stream().anyMatch(w -> w.app().equals(a.name())))) return "no warm-up";
    return "warmed up closed-loop at full speed (`wrk -t " + s.wrkThreads() + " -c " + s.wrkConnections() + "`"
        + (s.warmups().stream().anyMatch(w -> w.connection() == RoundScenario.Connection.H2) ? ", h2 lines `" + h2load(s) + "`" : "")
        + ": " + warmups(s) + ")";
  }

  /** True when the first cell of every app starts right at the server's ready answer: no settling, warm-up or idle. */
  static boolean measuredFromReady(RoundScenario s) {
    return s.settleNs() == 0 && s.pauseNs() == 0 && s.measuredApps().stream().noneMatch(a -> s.warmups().stream().anyMatch(w -> w.app().equals(a.name())));
  }

  /** The cells of a row: one per round in which {@code server} measured {@code cell}. */
  private static List<CellRun> runs(List<CellRun> runs, RoundScenario.Cell cell, String server) {
    return runs.stream().filter(r -> r.cell().equals(cell) && r.server().name().equals(server)).toList();
  }

  /** The same for one span of a windowed cell. */
  private static List<CellRun> runs(List<CellRun> runs, RoundScenario.Cell cell, RoundScenario.Span span, String server) {
    return runs(runs, cell, server).stream().filter(r -> r.span().equals(span)).toList();
  }

  /** The columns of {@link #row}. */
  private static final String FIGURES = "achieved rps | host CPU / request | Ruby CPU / request | tree CPU / request | p50 | p95 | p99 | p99.9 "
      + "| errors | host RSS | tree PSS |";

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

  /** The table a cell's rows go in: one per app, path and connection mode; a windowed cell has its own. */
  private static String group(RoundScenario.Cell cell) {
    return cell.app() + " " + cell.path() + " " + cell.connection().word + " " + (cell.closedLoop() ? "closed" : "open")
        + (cell.windowed() ? " " + cell.rps() + " windows " + cell.windowsNs() : "");
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
          .map(c -> "`" + c.path() + "` " + c.connection().word + " " + c.rate()
              + (c.windowed() ? " (in windows split at " + String.join(", ", c.windowsNs().stream().map(Format::seconds).toList()) + ")" : ""))
          .toList()));
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
