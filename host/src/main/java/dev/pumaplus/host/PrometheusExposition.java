/*
 * Renders GET /metrics of the control app: the host's request timing (QueueMetrics) and slot counters
 * (Dispatcher) in the Prometheus text exposition format 0.0.4, for scrapers and autoscalers (HPA, KEDA).
 */
package dev.pumaplus.host;

import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * Families, in this order, each with HELP and TYPE:
 * <ul>
 *   <li>histograms {@code puma_plus_queue_seconds}, {@code _service_}, {@code _total_}, {@code _body_wait_},
 *       {@code _upstream_seconds}: cumulative since start, buckets {@link #BUCKETS} s and +Inf, _sum, _count;</li>
 *   <li>gauges {@code puma_plus_queue_depth}, {@code _live_slots}, {@code _busy_slots},
 *       {@code _predicted_wait_seconds} (+Inf with no live slot), {@code _utilization} (NaN with no live
 *       slot);</li>
 *   <li>counters {@code puma_plus_requests_total{status_class="1xx".."5xx"}},
 *       {@code puma_plus_requests_dropped_total}, {@code puma_plus_requests_shed_total}.</li>
 * </ul>
 * Bucket counts come from the HdrHistogram kept at two significant digits: a value within 1% of a bucket
 * boundary may be counted on either side of it; _sum is likewise within 1%. Counts are cumulative over the
 * buckets and the +Inf bucket equals _count, as the format requires. Stateless; called on an event loop.
 */
final class PrometheusExposition {

    /** The content type of the text format. */
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    /** Bucket upper bounds in seconds, +Inf aside: 100 µs to 30 s. */
    static final double[] BUCKETS = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
        0.25, 0.5, 1, 2.5, 5, 10, 30};
    private static final String[] BUCKET_LABELS = {"0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005",
        "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "30"};

    /** A timing histogram family: its name, HELP text, and the QueueMetrics timing it exposes. */
    private record Family(String name, String help, Function<QueueMetrics, TimingHistogram> timing) {
    }

    private static final List<Family> HISTOGRAMS = List.of(
            new Family("puma_plus_queue_seconds",
                    "Queue time: from runnable (T2b, body buffered) to dispatched to a worker slot (T3).", m -> m.queue),
            new Family("puma_plus_service_seconds", "Service time: app.call entered (T4) to returned (T5), less the"
                    + " time the worker read the body.", m -> m.service),
            new Family("puma_plus_total_seconds",
                    "Total time: first request byte (T1) to last response byte sent (T6).", m -> m.total),
            new Family("puma_plus_body_wait_seconds", "Body wait: request headers parsed (T2) to runnable (T2b),"
                    + " plus the worker's read of a body streamed past 1 MiB.", m -> m.bodyWait),
            new Family("puma_plus_upstream_seconds", "Upstream queue time: X-Request-Start of a load balancer to"
                    + " headers parsed (T2), wall clock.", m -> m.upstream));

    private PrometheusExposition() {
    }

    /** The whole /metrics page. */
    static String render(QueueMetrics metrics, Dispatcher.Snapshot slots) {
        StringBuilder out = new StringBuilder(8192);
        for (Family family : HISTOGRAMS) {
            family.timing().apply(metrics).readCumulative(h -> histogram(out, family.name(), family.help(), h));
        }
        double slotMean = metrics.meanSlotNanos();
        double arrivals = metrics.window(QueueMetrics.MAIN_WINDOW_SECONDS).arrivalsPerSecond();
        gauge(out, "puma_plus_queue_depth", "Requests waiting for a worker slot (L).", slots.depth());
        gauge(out, "puma_plus_live_slots", "Worker slots connected to the host (c).", slots.live());
        gauge(out, "puma_plus_busy_slots", "Worker slots running a request.", slots.busy());
        gauge(out, "puma_plus_predicted_wait_seconds",
                "Predicted queue time of a request arriving now: 0 with an idle slot, else (L+1)*S/c.",
                QueueMetrics.predictedWaitNanos(slots.depth(), slots.busy(), slots.live(), slotMean) / 1e9);
        gauge(out, "puma_plus_utilization",
                "Arrival rate times mean slot time over live slots, over the last 10 s.",
                QueueMetrics.utilization(arrivals, slotMean, slots.live()));
        out.append("# HELP puma_plus_requests_total Responses by status class (host failures 502/503 included).\n");
        out.append("# TYPE puma_plus_requests_total counter\n");
        for (int digit = 1; digit <= 5; digit++) {
            out.append("puma_plus_requests_total{status_class=\"").append(digit).append("xx\"} ")
                    .append(metrics.statusCount(digit)).append('\n');
        }
        out.append("# HELP puma_plus_requests_dropped_total Requests cancelled by their client before dispatch.\n");
        out.append("# TYPE puma_plus_requests_dropped_total counter\n");
        out.append("puma_plus_requests_dropped_total ").append(slots.dropped()).append('\n');
        out.append("# HELP puma_plus_requests_shed_total Requests answered 503 at once: predicted wait over the limit.\n");
        out.append("# TYPE puma_plus_requests_shed_total counter\n");
        out.append("puma_plus_requests_shed_total ").append(metrics.shed()).append('\n');
        return out.toString();
    }

    private static StringBuilder histogram(StringBuilder out, String name, String help, Histogram h) {
        long[] counts = new long[BUCKETS.length];
        double sumNanos = 0;
        for (HistogramIterationValue v : h.recordedValues()) {
            long count = v.getCountAtValueIteratedTo();
            long value = v.getValueIteratedTo();
            sumNanos += (double) h.medianEquivalentValue(value) * count;
            // the bucket's lowest equivalent value: a value exactly on a boundary counts at or below it
            double seconds = h.lowestEquivalentValue(value) / 1e9;
            for (int i = 0; i < BUCKETS.length; i++) {
                if (seconds <= BUCKETS[i]) {
                    counts[i] += count;
                    break;
                }
            }
        }
        out.append("# HELP ").append(name).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(name).append(" histogram\n");
        long cumulative = 0;
        for (int i = 0; i < BUCKETS.length; i++) {
            cumulative += counts[i];
            out.append(name).append("_bucket{le=\"").append(BUCKET_LABELS[i]).append("\"} ").append(cumulative)
                    .append('\n');
        }
        long total = h.getTotalCount();
        out.append(name).append("_bucket{le=\"+Inf\"} ").append(total).append('\n');
        out.append(name).append("_sum ").append(number(sumNanos / 1e9)).append('\n');
        return out.append(name).append("_count ").append(total).append('\n');
    }

    private static void gauge(StringBuilder out, String name, String help, double value) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(name).append(" gauge\n");
        out.append(name).append(' ').append(number(value)).append('\n');
    }

    /** A sample value: integers plain, others with up to 9 decimals; +Inf, -Inf and NaN as the format spells them. */
    static String number(double value) {
        if (Double.isNaN(value)) {
            return "NaN";
        }
        if (Double.isInfinite(value)) {
            return value > 0 ? "+Inf" : "-Inf";
        }
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            return Long.toString((long) value);
        }
        String text = String.format(Locale.ROOT, "%.9f", value);
        int end = text.length();
        while (text.charAt(end - 1) == '0') {
            end--;
        }
        return text.substring(0, text.charAt(end - 1) == '.' ? end - 1 : end);
    }
}
