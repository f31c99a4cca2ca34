/*
 * The control app's /stats document: puma's cluster stats shape plus the queue object, computed from one
 * QueueReadout snapshot and the request timing windows. Beside the request path; read by operators and
 * dashboards built for puma.
 */
package dev.pumaplus.host.control;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pumaplus.host.measure.QueueMetrics;
import dev.pumaplus.host.queue.ProcessStatus;
import dev.pumaplus.host.queue.QueueReadout;
import dev.pumaplus.host.queue.QueueSnapshot;
import dev.pumaplus.host.queue.WebSocketReadout;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.util.List;

/**
 * {@code GET /stats} (served by {@link ControlRoutes}).
 *
 * <p>{@code queue}: {@code window} ("10s"); queue time p50/p95/p99/max over the last 10 s in ms
 * ({@code p50_ms} ...); {@code depth} (L), {@code busy_slots}, {@code live_slots} (c); with fiber slots,
 * {@code concurrency_limit} (how many may run at once; c is then the lower of it and the live slots);
 * {@code predicted_wait_ms} (W_pred, null with no live slot); {@code service_p50_ms},
 * {@code service_p95_ms}; {@code arrivals_per_s} (λ over 10 s); {@code slot_mean_ms} (S_slot, the mean time
 * a request holds a slot, null before any request finished); {@code utilization} (ρ = λ·S_slot/c, null with
 * no live slot); {@code dropped} (requests cancelled by their client before dispatch, since start);
 * {@code shed} (requests answered 503 at once because their predicted wait exceeded the limit);
 * {@code gvl_wait_p50_ms}, {@code gvl_wait_p95_ms} and {@code gvl_wait_ratio} (GVL wait per request, and its
 * share of service time, over 10 s; null when no request of the window measured it: unknown, as on Ruby
 * 3.1); and {@code windows}: {@code "1s"}, {@code "10s"}, {@code "60s"}, each with {@code count} (requests
 * dispatched in the window), {@code arrivals_per_s}, p50/p90/p95/p99/max of queue, service and total time
 * ({@code queue_p50_ms} ... {@code total_max_ms}), {@code gvl_count} and the GVL wait's
 * ({@code gvl_wait_p50_ms} ..., null when {@code gvl_count} is 0). Milliseconds are numbers with 3 decimals
 * (µs).
 *
 * <p>Per worker: {@code running} = its live links, {@code pool_capacity} = its idle links,
 * {@code busy_threads} = its busy links, {@code max_threads} = the configured threads,
 * {@code requests_count} = requests completed on its links. {@code backlog}: the queue is shared by all
 * workers, so the global depth is distributed across the booted workers (depth / n each, the remainder
 * one apiece to the first workers) so that per-worker values sum exactly to the global depth: dashboards
 * built for puma sum backlog across workers. The top-level {@code backlog} is the global depth.
 *
 *
 * <p>{@code websockets}, once {@link #webSockets} gave the hub's counts: {@code held} (WebSocket connections
 * now) and {@code webtransport}: {@code sessions} (held now), {@code sessions_refused}, {@code streams_refused},
 * {@code datagrams_dropped}, {@code datagrams_unsent} (since start; {@link WebSocketReadout.WebSocketCounts} says
 * what each counts).
 *
 * <p>Threading: {@link #render} and {@link #generation} may be called on any thread; the generation's
 * numbers are volatile and may change between two renders.
 */
final class StatsDocument {

    static final ObjectMapper JSON = new ObjectMapper();

    private final QueueReadout queue;
    private final Instant startedAt;
    private volatile int workers;
    private volatile int threads;
    /** The shepherd generation serving: puma's "phase" (0 for the first, as puma counts). */
    private volatile int phase;
    private volatile WebSocketReadout webSockets;

    StatsDocument(QueueReadout queue, int workers, int threads, Instant startedAt) {
        this.queue = queue;
        this.workers = workers;
        this.threads = threads;
        this.startedAt = startedAt;
    }

    /** A hot restart or TTIN/TTOU changed what /stats reports: generation number, workers, threads. */
    void generation(int number, int workerCount, int threadCount) {
        this.phase = number - 1;
        this.workers = workerCount;
        this.threads = threadCount;
    }

    /** The WebSocket hub's counts: {@code /stats} gains {@code websockets}. */
    void webSockets(WebSocketReadout readout) {
        this.webSockets = readout;
    }

    /** The /stats document now: one snapshot of the queue, rendered outside its lock. Any thread. */
    ObjectNode render() {
        QueueSnapshot s = queue.snapshot();
        ObjectNode root = JSON.createObjectNode();
        Instant now = Instant.now();
        List<ProcessStatus> booted = s.processes();
        root.put("started_at", startedAt.toString());
        root.put("workers", workers);
        root.put("phase", phase);
        root.put("pid", ProcessHandle.current().pid());
        root.put("booted_workers", booted.size());
        root.put("old_workers", 0);
        root.put("backlog", s.depth());
        ArrayNode status = root.putArray("worker_status");
        int n = booted.size();
        for (int i = 0; i < n; i++) {
            ProcessStatus p = booted.get(i);
            int backlog = s.depth() / n + (i < s.depth() % n ? 1 : 0);
            ObjectNode w = status.addObject();
            w.put("started_at", Instant.ofEpochMilli(p.startedAtMillis()).toString());
            w.put("pid", p.pid());
            w.put("index", p.workerIndex());
            w.put("phase", phase);
            w.put("booted", true);
            w.put("last_checkin", now.toString());
            ObjectNode last = w.putObject("last_status");
            last.put("backlog", backlog);
            last.put("running", p.live());
            last.put("pool_capacity", p.idle());
            last.put("max_threads", threads);
            last.put("requests_count", p.completed());
            last.put("busy_threads", p.busy());
        }
        queue(root.putObject("queue"), s);
        WebSocketReadout held = webSockets;
        if (held != null) {
            WebSocketReadout.WebSocketCounts counts = held.counts();
            ObjectNode ws = root.putObject("websockets");
            ws.put("held", counts.webSockets());
            ObjectNode wt = ws.putObject("webtransport");
            wt.put("sessions", counts.webTransportSessions());
            wt.put("sessions_refused", counts.sessionsRefused());
            wt.put("streams_refused", counts.streamsRefused());
            wt.put("datagrams_dropped", counts.datagramsDropped());
            wt.put("datagrams_unsent", counts.datagramsUnsent());
        }
        return root;
    }

    private void queue(ObjectNode queue, QueueSnapshot s) {
        QueueMetrics metrics = this.queue.metrics();
        QueueMetrics.Window main = metrics.window(QueueMetrics.MAIN_WINDOW_SECONDS);
        double slotMean = metrics.meanSlotNanos();
        queue.put("window", QueueMetrics.MAIN_WINDOW_SECONDS + "s");
        queue.put("p50_ms", millis(main.queue().p50()));
        queue.put("p95_ms", millis(main.queue().p95()));
        queue.put("p99_ms", millis(main.queue().p99()));
        queue.put("max_ms", millis(main.queue().max()));
        queue.put("depth", s.depth());
        queue.put("busy_slots", s.busy());
        queue.put("live_slots", s.live());
        if (s.limited()) {
            queue.put("concurrency_limit", s.limit());
        }
        putMillis(queue, "predicted_wait_ms",
                QueueMetrics.predictedWaitNanos(s.depth(), s.busy(), s.capacity(), slotMean));
        queue.put("service_p50_ms", millis(main.service().p50()));
        queue.put("service_p95_ms", millis(main.service().p95()));
        queue.put("arrivals_per_s", decimal(main.arrivalsPerSecond(), 3));
        putMillis(queue, "slot_mean_ms", slotMean);
        double rho = QueueMetrics.utilization(main.arrivalsPerSecond(), slotMean, s.capacity());
        if (Double.isNaN(rho)) {
            queue.putNull("utilization");
        } else {
            queue.put("utilization", decimal(rho, 4));
        }
        queue.put("dropped", s.dropped());
        queue.put("redispatched", s.redispatched());
        queue.put("shed", metrics.shed());
        gvl(queue, main, false);
        ObjectNode windows = queue.putObject("windows");
        for (int seconds : new int[] {1, 10, 60}) {
            QueueMetrics.Window w = seconds == QueueMetrics.MAIN_WINDOW_SECONDS ? main : metrics.window(seconds);
            ObjectNode node = windows.putObject(seconds + "s");
            node.put("count", w.queue().count());
            node.put("arrivals_per_s", decimal(w.arrivalsPerSecond(), 3));
            percentiles(node, "queue", w.queue());
            percentiles(node, "service", w.service());
            percentiles(node, "total", w.total());
            gvl(node, w, true);
        }
    }

    /**
     * GVL wait per request: null (unknown) when no request of the window carried it, as on Ruby 3.1, never
     * 0. Top level: p50, p95 and the ratio; in a window ({@code all}): its count and every percentile.
     */
    private static void gvl(ObjectNode node, QueueMetrics.Window w, boolean all) {
        QueueMetrics.Percentiles p = w.gvlWait();
        boolean known = p.count() > 0;
        if (all) {
            node.put("gvl_count", p.count());
        }
        for (String name : all ? new String[] {"p50", "p90", "p95", "p99", "max"} : new String[] {"p50", "p95"}) {
            String key = "gvl_wait_" + name + "_ms";
            if (!known) {
                node.putNull(key);
                continue;
            }
            node.put(key, millis(switch (name) {
                case "p50" -> p.p50();
                case "p90" -> p.p90();
                case "p95" -> p.p95();
                case "p99" -> p.p99();
                default -> p.max();
            }));
        }
        if (!all) {
            if (Double.isNaN(w.gvlWaitRatio())) {
                node.putNull("gvl_wait_ratio");
            } else {
                node.put("gvl_wait_ratio", decimal(w.gvlWaitRatio(), 4));
            }
        }
    }

    private static void percentiles(ObjectNode node, String name, QueueMetrics.Percentiles p) {
        node.put(name + "_p50_ms", millis(p.p50()));
        node.put(name + "_p90_ms", millis(p.p90()));
        node.put(name + "_p95_ms", millis(p.p95()));
        node.put(name + "_p99_ms", millis(p.p99()));
        node.put(name + "_max_ms", millis(p.max()));
    }

    /** ns as ms with 3 decimals (rounded to the µs), written plainly (0.012, never 1.2E-2). */
    static BigDecimal millis(long nanos) {
        return BigDecimal.valueOf((nanos + 500) / 1000, 3);
    }

    /** A double of ns as ms, or null when it is NaN or infinite (unknown, or no slot to serve). */
    private static void putMillis(ObjectNode node, String name, double nanos) {
        if (Double.isNaN(nanos) || Double.isInfinite(nanos)) {
            node.putNull(name);
        } else {
            node.put(name, millis(Math.round(nanos)));
        }
    }

    private static BigDecimal decimal(double value, int scale) {
        return BigDecimal.valueOf(value).setScale(scale, RoundingMode.HALF_UP);
    }
}
