// The summary of one measured run against one server, computed from its per-request records: the row of
// the report's table.
package dev.pumaplus.bench.loadgen;

import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * Immutable. {@code offeredRps} is the arrivals the Poisson clock actually drew per second of the schedule
 * (a Poisson draw of a nominal 2,000 rps for 10 s is 20,000 ± 141), {@code nominalRps} the schedule's mean
 * rate. Latencies in ms, counted from each request's intended start, over EVERY load request whatever
 * its outcome: a request that timed out counts with the time the client gave up after, an error with the
 * time it failed. {@code achievedRps} is OK responses per second of the schedule (or of the time until the
 * last request ended, when that is longer).
 */
public record RunStats(
    double nominalRps, double offeredRps, long sent, long ok, long errors, long timeouts, long httpErrors, long connectErrors,
    long ioErrors, double achievedRps, double p50Ms, double p95Ms, double p99Ms, double p999Ms, double maxMs,
    double sloExcessS, double sendLagP99Ms, long probes, long probeFailures, double probeMaxMs) {

  /** {@code sloNs}: the latency above which each request's excess is summed into {@code sloExcessS}. */
  public static RunStats of(RateSchedule schedule, LoadGenerator.Result result, long sloNs) {
    return window(result, 0, result.scheduleNs(), schedule.meanRps(), sloNs);
  }

  /**
   * The same over the requests whose intended start falls in [{@code fromNs}, {@code toNs}) of the run (one
   * step of the schedule), with {@code nominalRps} the step's rate. Achieved rate: OK responses to those
   * requests per second from {@code fromNs} to the later of {@code toNs} and the last of them to end.
   */
  public static RunStats window(LoadGenerator.Result result, long fromNs, long toNs, double nominalRps, long sloNs) {
    Histogram latency = new Histogram(3);
    Histogram lag = new Histogram(3);
    long sent = 0, ok = 0, timeouts = 0, http = 0, connect = 0, io = 0, other = 0, lastDone = 0;
    double excessNs = 0;
    for (RequestRecord r : result.load()) {
      if (r.intendedNs < fromNs || r.intendedNs >= toNs) continue;
      sent++;
      switch (r.outcome) {
        case OK -> ok++;
        case TIMEOUT -> timeouts++;
        case HTTP_ERROR -> http++;
        case CONNECT_ERROR -> connect++;
        case IO_ERROR -> io++;
        case UNFINISHED -> other++;
      }
      long ns = r.latencyNs();
      if (ns >= 0) {
        latency.recordValue(Math.max(1, ns));
        lastDone = Math.max(lastDone, r.doneNs);
        if (ns > sloNs) excessNs += ns - sloNs;
      }
      if (r.sentNs >= 0) lag.recordValue(Math.max(1, r.sendLagNs()));
    }
    long probes = 0, probeFailures = 0, probeMax = 0;
    for (RequestRecord r : result.probes()) {
      if (r.intendedNs < fromNs || r.intendedNs >= toNs) continue;
      probes++;
      if (r.outcome != Outcome.OK) probeFailures++;
      probeMax = Math.max(probeMax, Math.max(0, r.latencyNs()));
    }
    double seconds = (Math.max(toNs, lastDone) - fromNs) / 1e9;
    return new RunStats(nominalRps, sent / ((toNs - fromNs) / 1e9), sent, ok, sent - ok, timeouts, http, connect, io + other,
        ok / seconds, ms(latency, 50), ms(latency, 95), ms(latency, 99), ms(latency, 99.9), latency.getMaxValue() / 1e6,
        excessNs / 1e9, ms(lag, 99), probes, probeFailures, probeMax / 1e6);
  }

  private static double ms(Histogram h, double percentile) {
    return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1e6;
  }

  /** One human line, for the console. */
  public String line() {
    return String.format("nominal %.1f rps, offered %.1f rps, achieved %.1f rps (%d sent, %d ok, %d errors: %d timeouts, %d http, %d connect, %d io),"
            + " p50 %s p95 %s p99 %s p99.9 %s max %s, above SLO %.1f s, send lag p99 %s%s",
        nominalRps, offeredRps, achievedRps, sent, ok, errors, timeouts, httpErrors, connectErrors, ioErrors,
        Format.ms(p50Ms), Format.ms(p95Ms), Format.ms(p99Ms), Format.ms(p999Ms), Format.ms(maxMs), sloExcessS, Format.ms(sendLagP99Ms),
        probes == 0 ? "" : String.format(", probes %d failed of %d (slowest %s)", probeFailures, probes, Format.ms(probeMaxMs)));
  }

  /** The median of each field over repetitions (the middle one for 3), for the steady and overhead tables. */
  public static RunStats median(List<RunStats> runs) {
    if (runs.size() == 1) return runs.get(0);
    return new RunStats(
        med(runs, RunStats::nominalRps), med(runs, RunStats::offeredRps), (long) med(runs, r -> r.sent), (long) med(runs, r -> r.ok),
        (long) med(runs, r -> r.errors), (long) med(runs, r -> r.timeouts), (long) med(runs, r -> r.httpErrors),
        (long) med(runs, r -> r.connectErrors), (long) med(runs, r -> r.ioErrors), med(runs, RunStats::achievedRps),
        med(runs, RunStats::p50Ms), med(runs, RunStats::p95Ms), med(runs, RunStats::p99Ms), med(runs, RunStats::p999Ms), med(runs, RunStats::maxMs),
        med(runs, RunStats::sloExcessS), med(runs, RunStats::sendLagP99Ms), (long) med(runs, r -> r.probes),
        (long) med(runs, r -> r.probeFailures), med(runs, RunStats::probeMaxMs));
  }

  static double med(List<RunStats> runs, java.util.function.ToDoubleFunction<RunStats> field) {
    return Spread.of(runs, field).median();
  }

  /** (max − min) / median of a field over repetitions, as a fraction; 0 for one run. */
  static double spread(List<RunStats> runs, java.util.function.ToDoubleFunction<RunStats> field) {
    Spread s = Spread.of(runs, field);
    return s.median() == 0 ? 0 : (s.max() - s.min()) / s.median();
  }
}
