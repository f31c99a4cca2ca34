// What one measured run did to the slow dependency and with it (a scenario with a `dependency` line, issue
// 31): the concurrency limit second by second and when it settled, goodput against the dependency's
// capacity, the p99 of the answers that made their call, how the rest failed (shed or timed out), and the
// most calls the dependency held at once. The rows of the report's "slow dependency" table.
package dev.pumaplus.bench.loadgen;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * Immutable. "The overload step" is the schedule's first step above the dependency's capacity (K / HOLD),
 * else its highest; seconds count from the schedule's start. {@code limits}: the concurrency limit /stats
 * showed at each second of the timeline (-1: none, as for every server but puma-plus with fiber slots).
 * {@code settleS}: seconds from the overload step's start until the limit entered the band [0.75 K, 1.5 K]
 * (15–30 for K = 20) and stayed in it to the step's end (NaN: it never did). Goodput: OK responses that
 * ended between {@code CONVERGE_NS} after the step's start (half the step if that is shorter) and its end,
 * per second; {@code dependencyRps}: calls the dependency completed per second over the same seconds.
 * {@code p99OkMs}: the p99 latency of OK responses whose intended start is in the step. Errors count every
 * request of the run: 503s (shed), other HTTP errors, client timeouts, and broken or refused connections.
 */
record DependencyStats(double capacityRps, int overloadStep, double stepStartS, double stepEndS, int[] limits,
    double settleS, int bandLow, int bandHigh, int settledMin, int settledMax, double goodputRps, double dependencyRps,
    double p99OkMs, long shed503, long otherHttp, long timeouts, long connectionErrors, int peakInFlight) {

  static final long CONVERGE_NS = 10_000_000_000L;

  static DependencyStats of(Scenario.Dependency dependency, RateSchedule schedule, LoadGenerator.Result result, Timeline timeline,
      int peakInFlight) {
    double capacity = dependency.capacityPerSecond();
    List<RateSchedule.Step> steps = schedule.steps();
    int step = -1;
    for (int i = 0; i < steps.size() && step < 0; i++) if (steps.get(i).rps() > capacity) step = i;
    if (step < 0) {
      step = 0;
      for (int i = 1; i < steps.size(); i++) if (steps.get(i).rps() > steps.get(step).rps()) step = i;
    }
    long from = 0;
    for (int i = 0; i < step; i++) from += steps.get(i).durationNs();
    long to = from + steps.get(step).durationNs();

    List<Timeline.Second> seconds = timeline.seconds;
    int[] limits = seconds.stream().mapToInt(Timeline.Second::limit).toArray();
    int low = (int) Math.ceil(0.75 * dependency.concurrency());
    int high = (int) Math.floor(1.5 * dependency.concurrency());
    // Second i of the timeline (t = i + 1) holds the limit read before i + 1 s of the run.
    int first = (int) (from / 1_000_000_000L);
    int last = Math.min(limits.length, (int) Math.ceil(to / 1e9)) - 1;
    int settledAt = -1;
    for (int i = last; i >= first && limits[i] >= low && limits[i] <= high; i--) settledAt = i;
    double settle = settledAt < 0 ? Double.NaN : settledAt + 1 - from / 1e9;
    int min = Integer.MAX_VALUE, max = -1;
    for (int i = Math.max(0, settledAt); settledAt >= 0 && i <= last; i++) {
      min = Math.min(min, limits[i]);
      max = Math.max(max, limits[i]);
    }

    long goodFrom = from + Math.min(CONVERGE_NS, (to - from) / 2);
    long okInWindow = 0, shed = 0, http = 0, timeouts = 0, broken = 0;
    Histogram ok = new Histogram(3);
    for (RequestRecord r : result.load()) {
      switch (r.outcome) {
        case OK -> {
          if (r.doneNs >= goodFrom && r.doneNs < to) okInWindow++;
          if (r.intendedNs >= from && r.intendedNs < to) ok.recordValue(Math.max(1, r.latencyNs()));
        }
        case HTTP_ERROR -> {
          if (r.status == 503) shed++; else http++;
        }
        case TIMEOUT -> timeouts++;
        case CONNECT_ERROR, IO_ERROR, UNFINISHED -> broken++;
      }
    }
    long calls = 0;
    int callSeconds = 0;
    for (Timeline.Second s : seconds) {
      long end = s.t() * 1_000_000_000L;
      if (end - 1_000_000_000L >= goodFrom && end <= to && s.dependencyCalls() >= 0) {
        calls += s.dependencyCalls();
        callSeconds++;
      }
    }
    return new DependencyStats(capacity, step + 1, from / 1e9, to / 1e9, limits, settle, low, high,
        settledAt < 0 ? -1 : min, max, okInWindow / ((to - goodFrom) / 1e9), callSeconds == 0 ? Double.NaN : (double) calls / callSeconds,
        ok.getTotalCount() == 0 ? Double.NaN : ok.getValueAtPercentile(99) / 1e6, shed, http, timeouts, broken, peakInFlight);
  }

  /** Whether /stats showed a limit at all during the run. */
  boolean hasLimit() {
    for (int l : limits) if (l >= 0) return true;
    return false;
  }

  /**
   * The limit second by second, runs of one value folded: "128×11 115 104 … 24×20" ("-" for a second
   * without one); "n/a" when there was none.
   */
  String limitTrace() {
    if (!hasLimit()) return "n/a";
    List<String> parts = new ArrayList<>();
    for (int i = 0; i < limits.length; ) {
      int j = i;
      while (j < limits.length && limits[j] == limits[i]) j++;
      String value = limits[i] < 0 ? "-" : Integer.toString(limits[i]);
      parts.add(j - i == 1 ? value : value + "×" + (j - i));
      i = j;
    }
    return String.join(" ", parts);
  }

  /** "7 s (24–26)", or "never" / "n/a" (no limit). */
  String settleText() {
    if (!hasLimit()) return "n/a";
    if (Double.isNaN(settleS)) return "never";
    return String.format(Locale.ROOT, "%.0f s (%d–%d)", settleS, settledMin, settledMax);
  }
}
