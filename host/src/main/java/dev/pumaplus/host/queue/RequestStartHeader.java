/*
 * Reads the X-Request-Start header a load balancer or router stamps on a request, at submit (the queue
 * step), so the host can record upstream queue time — time spent before the request reached this host —
 * as its own metric, never mixed into queue time.
 */
package dev.pumaplus.host.queue;

import java.util.List;
import java.util.Map;

/**
 * Formats accepted (whitespace around is ignored): {@code t=1700000000.123} or a bare number, with or
 * without a fraction, in seconds, milliseconds, microseconds or nanoseconds since the epoch (nginx writes
 * {@code t=} with seconds.millis or microseconds, Heroku bare milliseconds, others nanoseconds). The unit is
 * inferred from the magnitude against the current wall clock: the unit that puts the value closest to now
 * on a log scale, i.e. the thresholds lie at now·10^1.5, now·10^4.5 and now·10^7.5 seconds' worth of units.
 * Anything else (letters, signs, several dots, more than 19 integer digits) is ignored. Allocation-free;
 * stateless and thread-safe.
 */
final class RequestStartHeader {

    /** Header name; compared case-insensitively. */
    static final String NAME = "X-Request-Start";
    /** Returned when the value cannot be read. */
    static final long INVALID = Long.MIN_VALUE;

    /** 10^1.5: halfway, on a log scale, between two units 10^3 apart. */
    private static final double LOG_MIDPOINT = Math.pow(10, 1.5);

    private RequestStartHeader() {
    }

    /** The first X-Request-Start value among {@code headers}, or null. */
    static String find(List<Map.Entry<String, String>> headers) {
        for (int i = 0, n = headers.size(); i < n; i++) {
            Map.Entry<String, String> h = headers.get(i);
            if (h.getKey().length() == NAME.length() && h.getKey().equalsIgnoreCase(NAME)) {
                return h.getValue();
            }
        }
        return null;
    }

    /**
     * The time the header names, in epoch ns, or {@link #INVALID}.
     *
     * @param value          the header value
     * @param nowEpochNanos  the current wall clock in epoch ns, to infer the unit from
     */
    static long epochNanos(String value, long nowEpochNanos) {
        int start = 0;
        int end = value.length();
        while (start < end && (value.charAt(start) == ' ' || value.charAt(start) == '\t')) {
            start++;
        }
        while (end > start && (value.charAt(end - 1) == ' ' || value.charAt(end - 1) == '\t')) {
            end--;
        }
        if (end - start > 2 && value.charAt(start) == 't' && value.charAt(start + 1) == '=') {
            start += 2;
        }
        long whole = 0;
        int wholeDigits = 0;
        long fraction = 0;
        int fractionDigits = 0;
        boolean dot = false;
        for (int i = start; i < end; i++) {
            char c = value.charAt(i);
            if (c == '.') {
                if (dot) {
                    return INVALID;
                }
                dot = true;
            } else if (c >= '0' && c <= '9') {
                if (!dot) {
                    if (++wholeDigits > 19 || whole > (Long.MAX_VALUE - (c - '0')) / 10) {
                        return INVALID;
                    }
                    whole = whole * 10 + (c - '0');
                } else if (fractionDigits < 9) { // beyond 9 digits of a fraction nothing is left to keep
                    fraction = fraction * 10 + (c - '0');
                    fractionDigits++;
                }
            } else {
                return INVALID;
            }
        }
        if (wholeDigits == 0 || whole == 0) {
            return INVALID;
        }
        long nanosPerUnit = unit(whole, nowEpochNanos);
        if (whole > Long.MAX_VALUE / nanosPerUnit) {
            return INVALID;
        }
        long nanos = whole * nanosPerUnit;
        long scale = 1;
        for (int i = 0; i < fractionDigits; i++) {
            scale *= 10;
        }
        // fraction < 10^9 and nanosPerUnit ≤ 10^9: the product fits in a long
        return nanos + fraction * nanosPerUnit / scale;
    }

    /** ns per unit of {@code whole}: 10^9 (s), 10^6 (ms), 10^3 (µs) or 1 (ns), by magnitude against now. */
    static long unit(long whole, long nowEpochNanos) {
        double nowSeconds = Math.max(1, nowEpochNanos / 1e9);
        double ratio = whole / nowSeconds; // ≈ 1 for seconds, 10^3 for ms, 10^6 for µs, 10^9 for ns
        if (ratio < LOG_MIDPOINT) {
            return 1_000_000_000L;
        }
        if (ratio < LOG_MIDPOINT * 1e3) {
            return 1_000_000L;
        }
        if (ratio < LOG_MIDPOINT * 1e6) {
            return 1_000L;
        }
        return 1L;
    }
}
