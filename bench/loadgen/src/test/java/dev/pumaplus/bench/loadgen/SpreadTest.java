// Spread: the median of a figure over rounds with its lowest and highest value, as the round benchmarks'
// tables print every figure ("812 µs [790–850]").
package dev.pumaplus.bench.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class SpreadTest {
  @Test
  void theMedianOfFiveRoundsIsTheMiddleOneAndOneSlowRoundOnlyMovesTheRange() {
    Spread s = Spread.of(61.9, 90.2, 62.5, 60.1, 63.0);
    assertEquals(62.5, s.median());
    assertEquals(60.1, s.min());
    assertEquals(90.2, s.max());
    assertEquals(5, s.n());
    assertEquals("62.5 µs [60.1–90.2]", s.format(1, "µs"));
  }

  @Test
  void anEvenCountTakesTheMeanOfTheTwoMiddleValuesAndRoundsThatMeasuredNothingAreLeftOut() {
    Spread s = Spread.of(List.of(4.0, Double.NaN, 1.0, 3.0, 2.0), Double::doubleValue);
    assertEquals(2.5, s.median());
    assertEquals(4, s.n());
    assertEquals("n/a", Spread.of(Double.NaN, Double.NaN).format(1, "µs"), "a server without a host has no host column");
  }

  @Test
  void oneRoundPrintsNoRangeAndLargeCountsAreGrouped() {
    assertEquals("17,266", Spread.of(17_266.4).format(0, ""));
    assertEquals("17,266 [15,522–18,010]", Spread.of(17_266.4, 15_522, 18_010).format(0, ""));
  }

  @Test
  void aLatencyGivenInMsIsPrintedInTheUnitItsMedianReadsBestInWithTheRangeInTheSameUnit() {
    assertEquals("812 µs [790–1,050]", Spread.of(0.812, 0.790, 1.050).latency());
    assertEquals("5.20 ms [3.10–6.50]", Spread.of(5.2, 3.1, 6.5).latency());
    assertEquals("250 ms [120–900]", Spread.of(250, 120, 900).latency());
    assertEquals("2.50 s [2.40–3.10]", Spread.of(2500, 2400, 3100).latency());
  }
}
