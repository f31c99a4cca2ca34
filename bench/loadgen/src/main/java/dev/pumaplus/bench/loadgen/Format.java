// Number formatting shared by every report: latencies that read like the seed's tables (µs, ms, s).
package dev.pumaplus.bench.loadgen;

import java.util.Locale;

final class Format {
  private Format() {}

  /** A latency in ms, shown with a unit that fits its size; "n/a" for NaN. */
  static String ms(double ms) {
    if (Double.isNaN(ms)) return "n/a";
    if (ms < 1) return String.format(Locale.ROOT, "%.0fµs", ms * 1000);
    if (ms < 100) return String.format(Locale.ROOT, "%.2fms", ms);
    if (ms < 1000) return String.format(Locale.ROOT, "%.0fms", ms);
    return String.format(Locale.ROOT, "%.2fs", ms / 1000);
  }

  /** A duration of a schedule or a setting, ns, in seconds: "15 s", "0.5 s". */
  static String seconds(long ns) {
    double s = ns / 1e9;
    return (s % 1 == 0 ? Long.toString((long) s) : String.format(Locale.ROOT, "%.3f", s).replaceFirst("0+$", "")) + " s";
  }

  /** A duration for wrk and h2load, which take whole seconds: "15s"; anything shorter than one second is one second. */
  static String wholeSeconds(long ns) {
    return Math.max(1, Math.round(ns / 1e9)) + "s";
  }

  static String num(double value, int decimals) {
    if (Double.isNaN(value)) return "n/a";
    return String.format(Locale.ROOT, "%." + decimals + "f", value);
  }

  /** Seconds or a duration like "30s", "500ms", "2m" to nanoseconds. */
  static long parseDuration(String text) {
    String t = text.trim();
    double value;
    long unit;
    if (t.endsWith("ms")) { value = Double.parseDouble(t.substring(0, t.length() - 2)); unit = 1_000_000L; }
    else if (t.endsWith("s")) { value = Double.parseDouble(t.substring(0, t.length() - 1)); unit = 1_000_000_000L; }
    else if (t.endsWith("m")) { value = Double.parseDouble(t.substring(0, t.length() - 1)); unit = 60_000_000_000L; }
    else throw new IllegalArgumentException("a duration needs a unit (ms, s, m): " + text);
    if (value < 0) throw new IllegalArgumentException("negative duration: " + text);
    return Math.round(value * unit);
  }
}
