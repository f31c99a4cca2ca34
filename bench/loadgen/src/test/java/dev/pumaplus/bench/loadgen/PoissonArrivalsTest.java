// The generator's clock: Poisson arrivals at the scheduled rate, following steps, reproducible by seed.
package dev.pumaplus.bench.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class PoissonArrivalsTest {
  private static final long S = TimeUnit.SECONDS.toNanos(1);

  private static List<Long> all(RateSchedule schedule, long seed) {
    PoissonArrivals arrivals = new PoissonArrivals(schedule, seed);
    List<Long> times = new ArrayList<>();
    for (long t = arrivals.next(); t >= 0; t = arrivals.next()) times.add(t);
    return times;
  }

  @Test
  void arrivalCountMatchesTheRateWithinFourStandardDeviations() {
    for (long seed = 1; seed <= 20; seed++) {
      int n = all(RateSchedule.constant(2000, 10 * S), seed).size();
      assertTrue(Math.abs(n - 20_000) < 4 * Math.sqrt(20_000), "seed " + seed + ": " + n + " arrivals for 20,000 expected");
    }
  }

  @Test
  void gapsAreExponentialNotEvenlySpaced() {
    List<Long> times = all(RateSchedule.constant(1000, 20 * S), 3);
    double sum = 0, sumSq = 0;
    for (int i = 1; i < times.size(); i++) {
      double gap = times.get(i) - times.get(i - 1);
      sum += gap;
      sumSq += gap * gap;
    }
    int n = times.size() - 1;
    double mean = sum / n;
    double cv = Math.sqrt(sumSq / n - mean * mean) / mean;
    assertEquals(1_000_000, mean, 30_000, "mean gap 1 ms at 1000 rps");
    assertEquals(1.0, cv, 0.05, "an exponential gap has a coefficient of variation of 1 (evenly spaced: 0)");
  }

  @Test
  void eachStepGetsItsOwnRateAndNoArrivalFallsOutsideTheSchedule() {
    RateSchedule schedule = new RateSchedule(List.of(new RateSchedule.Step(5 * S, 100), new RateSchedule.Step(5 * S, 0),
        new RateSchedule.Step(5 * S, 1000)));
    List<Long> times = all(schedule, 5);
    long first = times.stream().filter(t -> t < 5 * S).count();
    long pause = times.stream().filter(t -> t >= 5 * S && t < 10 * S).count();
    long last = times.stream().filter(t -> t >= 10 * S).count();
    assertEquals(500, first, 4 * Math.sqrt(500));
    assertEquals(0, pause);
    assertEquals(5000, last, 4 * Math.sqrt(5000));
    assertTrue(times.get(times.size() - 1) < 15 * S);
  }

  @Test
  void theSameSeedGivesEveryServerTheSameArrivals() {
    RateSchedule schedule = RateSchedule.constant(300, 3 * S);
    assertEquals(all(schedule, 42), all(schedule, 42));
  }
}
