/*
 * The Server-Timing response header the host adds with server_timing on (respond step): the request's queue
 * time and app time, so a browser's devtools show where the time went. A pure encoder of two durations.
 */
package dev.pumaplus.host.queue;

/** Formats {@code Server-Timing: queue;dur=..., app;dur=...}; stateless, any thread. */
final class ServerTimingHeader {

    private ServerTimingHeader() {
    }

    /**
     * The Server-Timing value for a queue time and an app time in ns: {@code queue;dur=1.234, app;dur=5.678}
     * (ms, 3 decimals, rounded to the µs; negative durations show as 0).
     */
    static String value(long queueNanos, long appNanos) {
        StringBuilder value = new StringBuilder(40).append("queue;dur=");
        millis(value, queueNanos);
        value.append(", app;dur=");
        millis(value, appNanos);
        return value.toString();
    }

    private static void millis(StringBuilder out, long nanos) {
        long micros = (Math.max(0, nanos) + 500) / 1000;
        long fraction = micros % 1000;
        out.append(micros / 1000).append('.');
        if (fraction < 100) {
            out.append('0');
        }
        if (fraction < 10) {
            out.append('0');
        }
        out.append(fraction);
    }
}
