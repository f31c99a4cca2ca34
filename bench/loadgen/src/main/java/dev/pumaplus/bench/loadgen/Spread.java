// One figure over a benchmark's rounds or repetitions: its median, lowest and highest value. The round
// benchmarks' tables print every figure this way ("812 µs [790–850]"); the open-loop tables take the median.
package dev.pumaplus.bench.loadgen;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * Immutable. NaN values (a figure a round could not measure: a server that has no host, a cell that
 * answered nothing) are left out, and {@code n} counts the rest; with none left every field is NaN.
 */
record Spread(double median, double min, double max, int n) {

  static Spread of(double... values) {
    double[] v = Arrays.stream(values).filter(x -> !Double.isNaN(x)).sorted().toArray();
    int n = v.length;
    if (n == 0) return new Spread(Double.NaN, Double.NaN, Double.NaN, 0);
    double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    return new Spread(median, v[0], v[n - 1], n);
  }

  static <T> Spread of(List<T> items, ToDoubleFunction<T> field) {
    return of(items.stream().mapToDouble(field).toArray());
  }

  /**
   * "1,234.5 µs [1,200.0–1,300.1]": the median with {@code decimals} and {@code unit} (none when empty),
   * then the range when more than one value made it; "n/a" when none did.
   */
  String format(int decimals, String unit) {
    if (n == 0) return "n/a";
    String pattern = "%,." + decimals + "f";
    String text = String.format(Locale.ROOT, pattern, median) + (unit.isEmpty() ? "" : " " + unit);
    if (n == 1) return text;
    return text + " [" + String.format(Locale.ROOT, pattern, min) + "–" + String.format(Locale.ROOT, pattern, max) + "]";
  }

  /**
   * A latency given in ms, in the unit its median reads best in (as {@link Format#ms}), the range in the
   * same unit: "812 µs [790–850]", "1.23 ms [1.10–1.40]", "2.50 s [2.40–3.10]".
   */
  String latency() {
    if (n == 0) return "n/a";
    if (median < 1) return scaled(1000).format(0, "µs");
    if (median < 100) return format(2, "ms");
    if (median < 1000) return format(0, "ms");
    return scaled(0.001).format(2, "s");
  }

  private Spread scaled(double factor) {
    return new Spread(median * factor, min * factor, max * factor, n);
  }
}
