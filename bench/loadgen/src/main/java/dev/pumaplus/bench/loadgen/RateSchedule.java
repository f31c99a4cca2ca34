// The offered load of one measured run: a list of steps, each a duration at a constant arrival rate (60 rps
// for 20 s, then 140 rps for 40 s, ...). The generator's independent clock follows it; nothing the server
// does changes it.
package dev.pumaplus.bench.loadgen;

import java.util.List;

/** Immutable. Durations in nanoseconds, rates in requests per second. */
public record RateSchedule(List<Step> steps) {

  /** One step: {@code rps} arrivals per second on average, for {@code durationNs}. A rate of 0 is a pause. */
  public record Step(long durationNs, double rps) {
    public Step {
      if (durationNs <= 0) throw new IllegalArgumentException("step duration must be > 0, was " + durationNs + " ns");
      if (rps < 0 || Double.isNaN(rps)) throw new IllegalArgumentException("step rate must be >= 0, was " + rps);
    }
  }

  public RateSchedule {
    if (steps.isEmpty()) throw new IllegalArgumentException("a rate schedule needs at least one step");
    steps = List.copyOf(steps);
  }

  /** A single step: {@code rps} for {@code durationNs}. */
  public static RateSchedule constant(double rps, long durationNs) {
    return new RateSchedule(List.of(new Step(durationNs, rps)));
  }

  /** The whole schedule's length, ns. */
  public long totalNs() {
    long total = 0;
    for (Step step : steps) total += step.durationNs();
    return total;
  }

  /** The nominal rate at {@code offsetNs} from the start (0 after the end). */
  public double rateAt(long offsetNs) {
    long end = 0;
    for (Step step : steps) {
      end += step.durationNs();
      if (offsetNs < end) return step.rps();
    }
    return 0;
  }

  /** Expected arrivals over the whole schedule: the sum of rate × duration. */
  public double expectedArrivals() {
    double sum = 0;
    for (Step step : steps) sum += step.rps() * step.durationNs() / 1e9;
    return sum;
  }

  /** The time-weighted mean rate, requests per second. */
  public double meanRps() {
    return expectedArrivals() / (totalNs() / 1e9);
  }
}
