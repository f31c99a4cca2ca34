// The generator's independent clock: the intended start of every request, drawn before it is sent and never
// moved by how the server responds. This is what keeps the harness open-loop (no coordinated omission).
package dev.pumaplus.bench.loadgen;

import java.util.SplittableRandom;

/**
 * Arrival offsets (ns from the run's start) of a Poisson process whose rate follows a {@link RateSchedule}:
 * inter-arrival gaps are exponential with mean 1/rate. At a step boundary the draw restarts with the new
 * rate, which is exact for a Poisson process (it has no memory). Deterministic for a given seed, so two
 * servers in one run face the very same arrival times. Not thread-safe: one consumer.
 */
public final class PoissonArrivals {
  private final RateSchedule schedule;
  private final SplittableRandom random;
  private int stepIndex;
  private long stepStartNs;
  private long nowNs;

  public PoissonArrivals(RateSchedule schedule, long seed) {
    this.schedule = schedule;
    this.random = new SplittableRandom(seed);
  }

  /** The next intended start, ns from the run's start, increasing; -1 once the schedule is over. */
  public long next() {
    while (stepIndex < schedule.steps().size()) {
      RateSchedule.Step step = schedule.steps().get(stepIndex);
      long stepEndNs = stepStartNs + step.durationNs();
      if (step.rps() > 0) {
        double gapNs = -Math.log(1.0 - random.nextDouble()) / step.rps() * 1e9;
        if (nowNs + gapNs < stepEndNs) {
          nowNs += (long) gapNs;
          return nowNs;
        }
      }
      nowNs = stepEndNs;
      stepStartNs = stepEndNs;
      stepIndex++;
    }
    return -1;
  }
}
