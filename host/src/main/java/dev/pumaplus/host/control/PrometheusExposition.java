/*
 * Renders GET /metrics of the control app: the host's request timing (QueueMetrics), slot counters
 * (QueueReadout) and process and JVM gauges (RuntimeGauges) in the Prometheus text exposition format 0.0.4,
 * for scrapers and autoscalers (HPA, KEDA).
 */
package dev.pumaplus.host.control;

import dev.pumaplus.host.measure.QueueMetrics;
import dev.pumaplus.host.measure.RuntimeGauges;
import dev.pumaplus.host.measure.TimingHistogram;
import dev.pumaplus.host.queue.ProcessStatus;
import dev.pumaplus.host.queue.QueueSnapshot;
import dev.pumaplus.host.queue.WebSocketReadout;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * Families, in this order, each with HELP and TYPE:
 * <ul>
 *   <li>histograms {@code puma_plus_queue_seconds}, {@code _service_}, {@code _total_}, {@code _body_wait_},
 *       {@code _upstream_}, {@code _gvl_wait_seconds} (only requests whose worker measured it):
 *       cumulative since start, buckets {@link #BUCKETS} s and +Inf, _sum, _count;</li>
 *   <li>gauges {@code puma_plus_queue_depth}, {@code _live_slots}, {@code _busy_slots},
 *       {@code _predicted_wait_seconds} (at most {@link #PREDICTED_WAIT_CAP_SECONDS}, which it reads with no
 *       live slot), {@code _utilization} (NaN with no live slot), {@code _gvl_wait_ratio} (NaN when no
 *       request of the last 10 s measured its GVL wait: unknown);</li>
 *   <li>counters {@code puma_plus_requests_total{status_class="1xx".."5xx"}},
 *       {@code puma_plus_requests_dropped_total}, {@code puma_plus_requests_shed_total},
 *       {@code puma_plus_health_checks_total{answered_by="host"|"app"}};</li>
 *   <li>with the WebSocket hub's counts ({@link WebSocketReadout}): gauges {@code puma_plus_websockets_held},
 *       {@code puma_plus_webtransport_sessions}; counters {@code puma_plus_webtransport_sessions_refused_total},
 *       {@code _streams_refused_total}, {@code _datagrams_dropped_total}, {@code _datagrams_unsent_total};</li>
 *   <li>per worker process ({@code pid}, {@code index}, {@code generation} labels): gauges
 *       {@code puma_plus_worker_slots{state="busy"|"idle"}} and
 *       {@code puma_plus_worker_resident_memory_bytes};</li>
 *   <li>the host process and its JVM, under the names Prometheus's client libraries use, so stock
 *       dashboards read them: {@code process_resident_memory_bytes}, {@code process_cpu_seconds_total},
 *       {@code process_open_fds}, {@code process_max_fds}, {@code jvm_threads_current},
 *       {@code jvm_memory_bytes_used{area="heap"}}, {@code _committed}, {@code _max}, and the summary
 *       {@code jvm_gc_collection_seconds{gc}} (_count, _sum). A figure /proc could not give is left out.</li>
 * </ul>
 * Bucket counts come from the HdrHistogram kept at two significant digits: a value within 1% of a bucket
 * boundary may be counted on either side of it; _sum is likewise within 1%. Counts are cumulative over the
 * buckets and the +Inf bucket equals _count, as the format requires. Stateless; called on an event loop.
 */
final class PrometheusExposition {

    /** The content type of the text format. */
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    /**
     * The most {@code puma_plus_predicted_wait_seconds} reads, and what it reads while no slot is live
     * (nothing would serve a request: the wait is unbounded). One hour, the longest duration the timing
     * histograms record: finite, so sums and averages across replicas stay numbers, and above any wait
     * a real client would sit through. docs/METRICS.md says why.
     */
    static final double PREDICTED_WAIT_CAP_SECONDS = TimingHistogram.MAX_NANOS / 1e9;

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
                    + " headers parsed (T2), wall clock.", m -> m.upstream),
            new Family("puma_plus_gvl_wait_seconds", "GVL wait: time the serving thread waited for its worker"
                    + " process's GVL between T4 and T5 (requests of workers that measure it, Ruby 3.2+).",
                    m -> m.gvlWait));

    private PrometheusExposition() {
    }

    /** The whole /metrics page, reading the process and JVM gauges now, without the WebSocket families. */
    static String render(QueueMetrics metrics, QueueSnapshot slots) {
        return render(metrics, slots, null);
    }

    /** The whole /metrics page, reading the process and JVM gauges now; {@code held} null: no WebSocket families. */
    static String render(QueueMetrics metrics, QueueSnapshot slots, WebSocketReadout.WebSocketCounts held) {
        return render(metrics, slots, held, RuntimeGauges.sample(slots.processes().stream()
                .map(ProcessStatus::pid).toList()));
    }

    /** The whole /metrics page from these readings. */
    static String render(QueueMetrics metrics, QueueSnapshot slots, WebSocketReadout.WebSocketCounts held,
            RuntimeGauges.Sample runtime) {
        StringBuilder out = new StringBuilder(8192);
        // Read first: they roll the seconds that ended since the last submit, so the cumulative histograms
        // below hold what an idle host recorded since (no timer rolls them: see QueueMetrics).
        double slotMean = metrics.meanSlotNanos();
        QueueMetrics.Window main = metrics.window(QueueMetrics.MAIN_WINDOW_SECONDS);
        double arrivals = main.arrivalsPerSecond();
        for (Family family : HISTOGRAMS) {
            family.timing().apply(metrics).readCumulative(h -> histogram(out, family.name(), family.help(), h));
        }
        gauge(out, "puma_plus_queue_depth", "Requests waiting for a worker slot (L).", slots.depth());
        gauge(out, "puma_plus_live_slots", "Worker slots connected to the host (c).", slots.live());
        gauge(out, "puma_plus_busy_slots", "Worker slots running a request.", slots.busy());
        if (slots.limited()) {
            gauge(out, "puma_plus_concurrency_limit",
                    "Fiber slots that may run a request at once, as the controller set it (c when below live slots).",
                    slots.limit());
        }
        gauge(out, "puma_plus_predicted_wait_seconds",
                "Predicted queue time of a request arriving now: 0 with an idle slot, else (L+1)*S/c;"
                        + " at most 3600, which it reads with no live slot.",
                predictedWaitSeconds(slots, slotMean));
        gauge(out, "puma_plus_utilization",
                "Arrival rate times mean slot time over live slots, over the last 10 s.",
                QueueMetrics.utilization(arrivals, slotMean, slots.capacity()));
        gauge(out, "puma_plus_gvl_wait_ratio",
                "GVL wait over service time of the requests that measured it, over the last 10 s; NaN: unknown.",
                main.gvlWaitRatio());
        out.append("# HELP puma_plus_requests_total Responses by status class (host failures 502/503 included).\n");
        out.append("# TYPE puma_plus_requests_total counter\n");
        for (int digit = 1; digit <= 5; digit++) {
            out.append("puma_plus_requests_total{status_class=\"").append(digit).append("xx\"} ")
                    .append(metrics.statusCount(digit)).append('\n');
        }
        out.append("# HELP puma_plus_requests_dropped_total Requests cancelled by their client before dispatch.\n");
        out.append("# TYPE puma_plus_requests_dropped_total counter\n");
        out.append("puma_plus_requests_dropped_total ").append(slots.dropped()).append('\n');
        out.append("# HELP puma_plus_requests_redispatched_total Requests a closing worker link never delivered, sent down another.\n");
        out.append("# TYPE puma_plus_requests_redispatched_total counter\n");
        out.append("puma_plus_requests_redispatched_total ").append(slots.redispatched()).append('\n');
        out.append("# HELP puma_plus_requests_shed_total Requests answered 503 at once: predicted wait over the limit.\n");
        out.append("# TYPE puma_plus_requests_shed_total counter\n");
        out.append("puma_plus_requests_shed_total ").append(metrics.shed()).append('\n');
        out.append("# HELP puma_plus_health_checks_total Requests for health_check_path, by who answered them.\n");
        out.append("# TYPE puma_plus_health_checks_total counter\n");
        out.append("puma_plus_health_checks_total{answered_by=\"host\"} ").append(metrics.healthChecks(true))
                .append('\n');
        out.append("puma_plus_health_checks_total{answered_by=\"app\"} ").append(metrics.healthChecks(false))
                .append('\n');
        if (held != null) {
            webSockets(out, held);
        }
        workers(out, slots, runtime.workerResidentBytes());
        process(out, runtime);
        return out.toString();
    }

    private static void webSockets(StringBuilder out, WebSocketReadout.WebSocketCounts held) {
        gauge(out, "puma_plus_websockets_held", "WebSocket connections the host holds.", held.webSockets());
        gauge(out, "puma_plus_webtransport_sessions", "WebTransport sessions the host holds.",
                held.webTransportSessions());
        counter(out, "puma_plus_webtransport_sessions_refused_total",
                "WebTransport CONNECTs answered 429: past their QUIC connection's session limit.", held.sessionsRefused());
        counter(out, "puma_plus_webtransport_streams_refused_total",
                "WebTransport client streams refused: past their session's stream or message limit, or naming no session.",
                held.streamsRefused());
        counter(out, "puma_plus_webtransport_datagrams_dropped_total",
                "WebTransport datagrams dropped on arrival: no such session, its events wait, or over the message limit.",
                held.datagramsDropped());
        counter(out, "puma_plus_webtransport_datagrams_unsent_total",
                "WebTransport datagrams the app sent, dropped unsent: larger than the client's max_datagram_frame_size or a packet.",
                held.datagramsUnsent());
    }

    private static void counter(StringBuilder out, String name, String help, long value) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(name).append(" counter\n");
        out.append(name).append(' ').append(value).append('\n');
    }

    /** W_pred in seconds, capped at {@link #PREDICTED_WAIT_CAP_SECONDS} (its value with no live slot). */
    static double predictedWaitSeconds(QueueSnapshot slots, double slotMeanNanos) {
        double wait = QueueMetrics.predictedWaitNanos(slots.depth(), slots.busy(), slots.capacity(), slotMeanNanos) / 1e9;
        return Math.min(wait, PREDICTED_WAIT_CAP_SECONDS);
    }

    private static void workers(StringBuilder out, QueueSnapshot slots, Map<Long, Long> resident) {
        out.append("# HELP puma_plus_worker_slots Slots (links) of one worker process, busy or idle.\n");
        out.append("# TYPE puma_plus_worker_slots gauge\n");
        for (ProcessStatus p : slots.processes()) {
            String labels = workerLabels(p);
            out.append("puma_plus_worker_slots{").append(labels).append(",state=\"busy\"} ").append(p.busy())
                    .append('\n');
            out.append("puma_plus_worker_slots{").append(labels).append(",state=\"idle\"} ").append(p.idle())
                    .append('\n');
        }
        out.append("# HELP puma_plus_worker_resident_memory_bytes Resident set size of one worker process.\n");
        out.append("# TYPE puma_plus_worker_resident_memory_bytes gauge\n");
        for (ProcessStatus p : slots.processes()) {
            Long rss = resident.get(p.pid());
            if (rss != null) {
                out.append("puma_plus_worker_resident_memory_bytes{").append(workerLabels(p)).append("} ")
                        .append(rss).append('\n');
            }
        }
    }

    private static String workerLabels(ProcessStatus p) {
        return "pid=\"" + p.pid() + "\",index=\"" + p.workerIndex() + "\",generation=\"" + p.generation() + "\"";
    }

    private static void process(StringBuilder out, RuntimeGauges.Sample r) {
        if (r.residentBytes() >= 0) {
            gauge(out, "process_resident_memory_bytes", "Resident memory size of the host process in bytes.",
                    r.residentBytes());
        }
        if (r.cpuSeconds() >= 0) {
            out.append("# HELP process_cpu_seconds_total User and system CPU time of the host process in seconds.\n");
            out.append("# TYPE process_cpu_seconds_total counter\n");
            out.append("process_cpu_seconds_total ").append(number(r.cpuSeconds())).append('\n');
        }
        if (r.openFds() >= 0) {
            gauge(out, "process_open_fds", "Open file descriptors of the host process.", r.openFds());
        }
        if (r.maxFds() >= 0) {
            gauge(out, "process_max_fds", "The host process's limit on open file descriptors.", r.maxFds());
        }
        gauge(out, "jvm_threads_current", "Live threads of the host's JVM.", r.threads());
        jvmMemory(out, "used", "Heap in use", r.heapUsedBytes());
        jvmMemory(out, "committed", "Heap the JVM holds from the operating system", r.heapCommittedBytes());
        if (r.heapMaxBytes() >= 0) {
            jvmMemory(out, "max", "The heap's limit", r.heapMaxBytes());
        }
        out.append("# HELP jvm_gc_collection_seconds Time spent in a given JVM garbage collector in seconds.\n");
        out.append("# TYPE jvm_gc_collection_seconds summary\n");
        for (RuntimeGauges.Collector gc : r.collectors()) {
            String label = "{gc=\"" + escapeLabel(gc.name()) + "\"} ";
            out.append("jvm_gc_collection_seconds_count").append(label).append(gc.collections()).append('\n');
            out.append("jvm_gc_collection_seconds_sum").append(label).append(number(gc.seconds())).append('\n');
        }
    }

    private static void jvmMemory(StringBuilder out, String kind, String help, long bytes) {
        String name = "jvm_memory_bytes_" + kind;
        out.append("# HELP ").append(name).append(' ').append(help).append(", bytes.\n");
        out.append("# TYPE ").append(name).append(" gauge\n");
        out.append(name).append("{area=\"heap\"} ").append(bytes).append('\n');
    }

    /** A label value as the format escapes it: backslash, double quote and newline. */
    static String escapeLabel(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
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
