// One measured cell (or one window of a windowed cell) of one server in one round of a round benchmark
// (RoundRunner): what the client saw (rate, latency, errors) and what the server spent over the window (CPU of
// its host, its Ruby processes and the whole tree; memory as the window ended). One row of RoundReport's
// "every cell" list.
package dev.pumaplus.bench.loadgen;

import java.util.Locale;

/**
 * Immutable. {@code span}: the stretch of the cell's run this covers (the whole cell, or a window or a first
 * stretch of a windowed one: its requests are those whose intended start falls in it). {@code answered}:
 * responses the client received, whatever their status (the divisor of CPU per request); {@code errors}:
 * requests without a 2xx/3xx answer (timeouts, resets, 4xx/5xx). Latencies in ms: open-loop from each
 * request's intended start, closed-loop the client's service time. {@code offeredRps}: the arrivals the
 * Poisson clock drew per second (NaN closed-loop). {@code hostRssKb}: -1 without a host. {@code tcpOpens}: TCP
 * connections opened on the machine in the window. {@code clientCpuPercent}: wrk's or h2load's CPU over its
 * run, percent of its core (NaN open-loop). {@code sendLagP99Ms}: how late the generator wrote its requests
 * after their intended starts, p99 (NaN closed-loop): a latency tail the client made itself shows here.
 */
record CellRun(Scenario.ServerSpec server, int round, RoundScenario.Cell cell, RoundScenario.Span span, long answered, long errors,
    double offeredRps, double achievedRps, double p50Ms, double p95Ms, double p99Ms, double p999Ms, CpuAccount.Usage cpu, boolean hasHost,
    long hostRssKb, long treePssKb, int processes, long tcpOpens, double clientCpuPercent, double sendLagP99Ms, String loadBefore,
    String loadAfter) {

  /** The whole tree's CPU per answered request, µs. */
  double treeUs() {
    return perRequestUs(cpu.treeNs());
  }

  /** The host's CPU per answered request, µs; NaN for a server without a host (puma). */
  double hostUs() {
    return hasHost ? perRequestUs(cpu.hostNs()) : Double.NaN;
  }

  /** Of {@link #hostUs}, what the host's JIT compiler threads used, µs. */
  double hostJitUs() {
    return hasHost ? perRequestUs(cpu.hostJitNs()) : Double.NaN;
  }

  /** Everything but the host per answered request, µs: the Ruby processes (all of puma). */
  double rubyUs() {
    return perRequestUs(cpu.rubyNs());
  }

  double opensPerRequest() {
    return answered == 0 ? Double.NaN : (double) tcpOpens / answered;
  }

  private double perRequestUs(long ns) {
    return answered == 0 ? Double.NaN : ns / 1e3 / answered;
  }

  /** One run on one line, for the console and the report's last section. */
  String line() {
    String host = hasHost ? String.format(Locale.ROOT, "host %s (JIT %s, RSS %d MB), ", us(hostUs()), us(hostJitUs()), hostRssKb / 1024) : "";
    String offered = Double.isNaN(offeredRps) ? "" : String.format(Locale.ROOT, "offered %.1f, ", offeredRps);
    String client = Double.isNaN(clientCpuPercent) ? "" : String.format(Locale.ROOT, ", client CPU %.0f%%", clientCpuPercent);
    String lag = Double.isNaN(sendLagP99Ms) ? "" : ", send lag p99 " + Format.ms(sendLagP99Ms);
    return String.format(Locale.ROOT, "%s%.1f rps (%d answered, %d errors), p50 %s p95 %s p99 %s p99.9 %s%s; CPU/request: %sRuby %s, "
            + "tree %s; tree PSS %d MB, %d processes; %.3f new connections/request%s; load %s / %s",
        offered, achievedRps, answered, errors, Format.ms(p50Ms), Format.ms(p95Ms), Format.ms(p99Ms), Format.ms(p999Ms), lag, host,
        us(rubyUs()), us(treeUs()), treePssKb / 1024, processes, opensPerRequest(), client, loadBefore, loadAfter);
  }

  private static String us(double us) {
    return Double.isNaN(us) ? "n/a" : String.format(Locale.ROOT, "%.1f µs", us);
  }
}
