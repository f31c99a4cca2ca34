// Writes the capacity benchmark's report into its results directory: summary.md with the medians per
// server and connection mode, the ratios puma-plus / puma per configuration, each role's share, the
// client's ceiling (the null server's rows) and every run's line. wrk's own output is beside it (*.wrk.txt).
package dev.pumaplus.bench.loadgen;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

final class CapacityReport {
  private CapacityReport() {}

  /** One run on one line, for the console and the report's last section. */
  static String line(CapacityRunner.Run r) {
    StringBuilder roles = new StringBuilder();
    for (String role : r.roleTicks().keySet()) {
      roles.append(", ").append(roleCpu(role, r.cpuPerRequestUs(role), r.jitPerRequestUs(role)));
    }
    return String.format(Locale.ROOT, "%,.0f rps (%d requests in %.2f s, %d errors, p50 %s p99 %s, client CPU %.0f%%), "
            + "%.3f new connections/request, CPU/request %s%s; PSS idle %s, loaded %s (%s); %d processes",
        r.wrk().rps(), r.wrk().requests(), r.wrk().durationUs() / 1e6, r.wrk().errors(), Format.ms(r.wrk().p50Us() / 1e3),
        Format.ms(r.wrk().p99Us() / 1e3), r.clientCpuPercent(), r.opensPerRequest(), us(r.cpuPerRequestUs()), roles, mb(r.pssIdleKb()),
        mb(r.pssLoadedKb()), rolePss(r), r.processes());
  }

  static void write(CapacityScenario scenario, List<CapacityRunner.Run> runs, Path out, String generatorCpus) throws IOException {
    Map<String, List<CapacityRunner.Run>> groups = new LinkedHashMap<>();
    for (CapacityRunner.Run r : runs) groups.computeIfAbsent(r.server().name() + " " + r.mode().word, k -> new ArrayList<>()).add(r);
    StringBuilder md = new StringBuilder();
    md.append("# ").append(scenario.name()).append("\n\n");
    if (!scenario.description().isEmpty()) md.append(scenario.description()).append("\n\n");
    md.append(String.format(Locale.ROOT, "- client: `wrk -t %d -c %d` (closed loop: each connection sends its next request when the last "
            + "one is answered), GET `%s`, %s; timeout %s%n", scenario.threads(), scenario.connections(), scenario.path(),
        String.join(" and ", scenario.modes().stream().map(m -> m == CapacityScenario.Connection.CLOSE
            ? "a new connection per request (`-H 'Connection: close'`)" : "keep-alive").toList()), Format.ms(scenario.timeoutNs() / 1e6)));
    md.append(String.format(Locale.ROOT, "- every measured run: %s of warm-up (same mode, not recorded), then %s measured%n",
        Format.ms(scenario.warmupNs() / 1e6), Format.ms(scenario.measureNs() / 1e6)));
    md.append(String.format(Locale.ROOT, "- servers' whole process tree pinned to CPU %d, wrk on CPU(s) %s; %d run(s)%s%n",
        scenario.serverCpu(), generatorCpus, scenario.repeat(), scenario.repeat() > 1 ? ", table = medians (each column its own)" : ""));
    md.append("- CPU/request: utime + stime of the server's processes (/proc/PID/stat) over the measured window, divided by the "
        + "requests wrk completed in it; by role, \"(JIT x)\" is the part of it a JVM's compiler threads used (C1/C2, "
        + "/proc/PID/task/*/stat): compiling its hot code, not serving; PSS: /proc/PID/smaps_rollup summed over the tree, idle = after /health answered and the "
        + "process count held for 1 s, before any load; loaded = as the measured run ended\n");
    md.append("- new conns/request: TCP connections opened on the whole machine (/proc/net/snmp ActiveOpens) during the window, "
        + "per request: ~1 proves a new connection per request, ~0 keep-alive (puma 5.6 closes a keep-alive connection after 10 "
        + "requests when all its threads are busy and another connection waits: ~0.1); client CPU: wrk's utime + stime over its "
        + "run, percent of its core (near 100%: the client, not the server, set the rate)\n");
    md.append("- load average (1/5/15 min) before/after each run: ");
    md.append(String.join("; ", runs.stream().map(r -> r.server().name() + " " + r.mode().word + " #" + r.rep() + " " + r.loadBefore()
        + " / " + r.loadAfter()).toList())).append("\n\n");

    md.append("| server | connection | rps | errors | client CPU | new conns / request | CPU / request | by role | PSS idle | PSS loaded |\n");
    md.append("| --- | --- | --: | --: | --: | --: | --: | --- | --: | --: |\n");
    for (List<CapacityRunner.Run> g : groups.values()) {
      CapacityRunner.Run first = g.get(0);
      List<String> roles = new ArrayList<>();
      for (String role : first.roleTicks().keySet()) {
        roles.add(roleCpu(role, median(g, r -> r.cpuPerRequestUs(role)), median(g, r -> r.jitPerRequestUs(role))));
      }
      md.append(String.format(Locale.ROOT, "| %s | %s | %,.0f | %.0f | %.0f%% | %.3f | %s | %s | %s | %s |%n", first.server().name(),
          first.mode().word, median(g, r -> r.wrk().rps()), median(g, r -> r.wrk().errors()), median(g, CapacityRunner.Run::clientCpuPercent),
          median(g, CapacityRunner.Run::opensPerRequest),
          us(median(g, CapacityRunner.Run::cpuPerRequestUs)), String.join(", ", roles), mb(median(g, CapacityRunner.Run::pssIdleKb)),
          mb(median(g, CapacityRunner.Run::pssLoadedKb))));
    }

    md.append("\nPSS by role, idle → loaded (medians):\n\n| server | connection | PSS by role |\n| --- | --- | --- |\n");
    for (List<CapacityRunner.Run> g : groups.values()) {
      List<String> roles = new ArrayList<>();
      for (String role : g.get(0).rolePssLoadedKb().keySet()) {
        roles.add(String.format(Locale.ROOT, "%s %.0f → %s", role, median(g, r -> r.rolePssIdleKb().getOrDefault(role, 0L)) / 1024,
            mb(median(g, r -> r.rolePssLoadedKb().get(role)))));
      }
      md.append(String.format(Locale.ROOT, "| %s | %s | %s |%n", g.get(0).server().name(), g.get(0).mode().word, String.join(", ", roles)));
    }

    List<String[]> ratios = new ArrayList<>();
    for (List<CapacityRunner.Run> plus : groups.values()) {
      Scenario.ServerSpec s = plus.get(0).server();
      if (!s.kind().equals("puma-plus")) continue;
      List<CapacityRunner.Run> puma = groups.get("puma" + (s.name().equals(s.kind()) ? "" : ":" + CapacityScenario.config(s)) + " "
          + plus.get(0).mode().word);
      if (puma == null) continue;
      ratios.add(new String[] {CapacityScenario.config(s), plus.get(0).mode().word,
          ratio(plus, puma, r -> r.wrk().rps()), ratio(plus, puma, CapacityRunner.Run::cpuPerRequestUs),
          ratio(plus, puma, CapacityRunner.Run::pssIdleKb), ratio(plus, puma, CapacityRunner.Run::pssLoadedKb),
          String.format(Locale.ROOT, "%.0f%%", 100 * median(plus, r -> r.cpuPerRequestUs("host")) / median(plus, CapacityRunner.Run::cpuPerRequestUs))});
    }
    if (!ratios.isEmpty()) {
      md.append("\npuma-plus / puma, same configuration and connection mode (medians against medians):\n\n");
      md.append("| config | connection | rps | CPU / request | PSS idle | PSS loaded | host's share of puma-plus's CPU |\n");
      md.append("| --- | --- | --: | --: | --: | --: | --: |\n");
      for (String[] row : ratios) md.append("| ").append(String.join(" | ", row)).append(" |\n");
    }

    List<String> ceiling = new ArrayList<>();
    for (List<CapacityRunner.Run> g : groups.values()) {
      if (g.get(0).server().kind().equals("null")) {
        ceiling.add(String.format(Locale.ROOT, "%,.0f rps %s", median(g, r -> r.wrk().rps()), g.get(0).mode().word));
      }
    }
    if (!ceiling.isEmpty()) {
      md.append("\nThe client's ceiling, wrk against the null server (a Netty server that does nothing): ")
          .append(String.join(", ", ceiling))
          .append(". The null server has one core too: where its client CPU is below 100%, the null server, not wrk, set that rate, "
              + "and a server's rps above it is no sign of the client's limit.\n");
    }

    md.append("\nEvery run:\n\n```\n");
    for (CapacityRunner.Run r : runs) md.append(r.server().name()).append(' ').append(r.mode().word).append(" #").append(r.rep()).append(": ")
        .append(line(r)).append('\n');
    md.append("```\n\nwrk's own output of every run: <server>-r<N>-<connection>.wrk.txt (warm-up: .warmup.wrk.txt); server logs: *.server.log.\n");
    Files.writeString(out.resolve("summary.md"), md.toString());
  }

  /** "host 30.1 µs", with " (JIT 5.2 µs)" when the role's compiler threads used some of it. */
  private static String roleCpu(String role, double us, double jitUs) {
    return role + " " + us(us) + (jitUs > 0.05 ? " (JIT " + us(jitUs) + ")" : "");
  }

  private static String rolePss(CapacityRunner.Run r) {
    List<String> parts = new ArrayList<>();
    for (Map.Entry<String, Long> e : r.rolePssLoadedKb().entrySet()) parts.add(e.getKey() + " " + mb(e.getValue()));
    return String.join(", ", parts);
  }

  private static String ratio(List<CapacityRunner.Run> plus, List<CapacityRunner.Run> puma, ToDoubleFunction<CapacityRunner.Run> metric) {
    return String.format(Locale.ROOT, "%.2f×", median(plus, metric) / median(puma, metric));
  }

  static double median(List<CapacityRunner.Run> runs, ToDoubleFunction<CapacityRunner.Run> metric) {
    double[] v = runs.stream().mapToDouble(metric).sorted().toArray();
    int n = v.length;
    return n == 0 ? Double.NaN : n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }

  private static String us(double us) {
    return Double.isNaN(us) ? "n/a" : String.format(Locale.ROOT, "%.1f µs", us);
  }

  private static String mb(double kb) {
    return String.format(Locale.ROOT, "%.0f MB", kb / 1024);
  }
}
