// The run second by second (`-timeline`): what clients saw (completions, p50, p99, errors, probe failures,
// all bucketed by the second the request ENDED), what the server cost (processes, memory), what it said
// about itself (queue p95 and concurrency limit from its own /stats; n/a for a server that cannot report
// them), and, with a `dependency` line, the dependency's calls in flight and calls completed.
package dev.pumaplus.bench.loadgen;

import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;

/** Immutable once built. */
final class Timeline {
  /**
   * One second. Latencies in ms (NaN with no completion that second); memory in MB; cpu = the server's
   * whole tree, percent of one core since the previous sample (NaN unknown); queue NaN = n/a. {@code limit}:
   * the concurrency limit in force (-1: none or n/a); {@code dependencyInFlight}: the dependency's calls in
   * flight at the sample, {@code dependencyCalls}: calls it completed since the previous sample (-1: no
   * dependency or no sample).
   */
  record Second(int t, double offeredRps, int sent, int ok, int errors, double p50Ms, double p99Ms, int processes,
      double memoryMb, double cpuPercent, double queueP95Ms, int probeFailures, int connections, int limit,
      int dependencyInFlight, long dependencyCalls) {}

  final List<Second> seconds;

  private Timeline(List<Second> seconds) {
    this.seconds = seconds;
  }

  static Timeline build(RateSchedule schedule, LoadGenerator.Result result, List<ProcessTree.Sample> processes,
      List<ServerSampler.QueueSample> queue, boolean hasStats, List<ServerSampler.DependencySample> dependency) {
    long end = result.scheduleNs();
    for (RequestRecord r : result.load()) end = Math.max(end, r.doneNs);
    int n = (int) Math.ceil(end / 1e9);
    int[] sent = new int[n + 1], ok = new int[n + 1], errors = new int[n + 1], probeFailures = new int[n + 1];
    Histogram[] latency = new Histogram[n + 1];
    for (int i = 0; i <= n; i++) latency[i] = new Histogram(3);
    for (RequestRecord r : result.load()) {
      sent[second(r.intendedNs, n)]++;
      if (r.doneNs < 0) continue;
      int s = second(r.doneNs, n);
      if (r.outcome == Outcome.OK) ok[s]++; else errors[s]++;
      latency[s].recordValue(Math.max(1, r.latencyNs()));
    }
    for (RequestRecord r : result.probes()) {
      if (r.outcome != Outcome.OK) probeFailures[second(r.intendedNs, n)]++;
    }
    List<Second> seconds = new ArrayList<>();
    for (int s = 0; s < n; s++) {
      ProcessTree.Sample p = lastIn(processes, result.originNanos(), s, ProcessTree.Sample::atNanos);
      int index = p == null ? -1 : processes.indexOf(p);
      double cpu = Double.NaN;
      if (index > 0) {
        ProcessTree.Sample before = processes.get(index - 1);
        double elapsed = (p.atNanos() - before.atNanos()) / 1e9;
        cpu = 100.0 * (p.cpuTicks() - before.cpuTicks()) / ProcessTree.TICKS_PER_SECOND / elapsed;
      }
      ServerSampler.QueueSample q = lastIn(queue, result.originNanos(), s, ServerSampler.QueueSample::atNanos);
      ServerSampler.DependencySample d = lastIn(dependency, result.originNanos(), s, ServerSampler.DependencySample::atNanos);
      int dIndex = d == null ? -1 : dependency.indexOf(d);
      long calls = dIndex > 0 ? d.completed() - dependency.get(dIndex - 1).completed() : -1;
      Histogram h = latency[s];
      seconds.add(new Second(s + 1, schedule.rateAt(s * 1_000_000_000L), sent[s], ok[s], errors[s],
          h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(50) / 1e6,
          h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(99) / 1e6,
          p == null ? -1 : p.processes(), p == null ? Double.NaN : p.pssKb() / 1024.0, cpu,
          !hasStats || q == null ? Double.NaN : q.queueP95Ms(), probeFailures[s],
          s < result.connections().size() ? result.connections().get(s) : -1,
          !hasStats || q == null ? -1 : q.concurrencyLimit(), d == null ? -1 : d.inFlight(), calls));
    }
    return new Timeline(seconds);
  }

  private static int second(long ns, int n) {
    return (int) Math.min(n, Math.max(0, ns / 1_000_000_000L));
  }

  /**
   * The last sample taken before the end of second {@code s} of the run (origin-relative), if it is less
   * than 2 s old; else null. The sampler ticks once a second on its own clock, so a second may hold zero
   * or two samples: the latest one that is not stale stands for it.
   */
  private static <T> T lastIn(List<T> samples, long origin, int s, java.util.function.ToLongFunction<T> at) {
    T found = null;
    for (T sample : samples) {
      long rel = at.applyAsLong(sample) - origin;
      if (rel >= (s - 1) * 1_000_000_000L && rel < (s + 1) * 1_000_000_000L) found = sample;
    }
    return found;
  }

  /**
   * Mean and peak memory (MB), peak process count, and mean CPU (percent of one core) over the samples
   * taken during the schedule.
   */
  static double[] memory(List<ProcessTree.Sample> processes, long origin, long scheduleNs) {
    double sum = 0, peak = 0;
    int count = 0, procs = 0;
    ProcessTree.Sample first = null, last = null;
    for (ProcessTree.Sample p : processes) {
      long rel = p.atNanos() - origin;
      if (rel < 0 || rel > scheduleNs) continue;
      if (first == null) first = p;
      last = p;
      double mb = p.pssKb() / 1024.0;
      sum += mb;
      peak = Math.max(peak, mb);
      procs = Math.max(procs, p.processes());
      count++;
    }
    double cpu = first == null || last == first ? Double.NaN
        : 100.0 * (last.cpuTicks() - first.cpuTicks()) / ProcessTree.TICKS_PER_SECOND / ((last.atNanos() - first.atNanos()) / 1e9);
    return new double[] {count == 0 ? Double.NaN : sum / count, count == 0 ? Double.NaN : peak, procs, cpu};
  }
}
