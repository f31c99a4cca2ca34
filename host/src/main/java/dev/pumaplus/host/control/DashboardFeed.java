/*
 * One dashboard stream's snapshots: once a second it reads the queue (QueueReadout, QueueMetrics), the
 * processes' memory (RuntimeGauges) and the autoscaler's recent decisions, and writes the JSON object the
 * page plots. Beside the request path: it reads the counters the queue keeps and changes nothing.
 */
package dev.pumaplus.host.control;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pumaplus.host.measure.QueueMetrics;
import dev.pumaplus.host.measure.RuntimeGauges;
import dev.pumaplus.host.queue.ProcessStatus;
import dev.pumaplus.host.queue.QueueReadout;
import dev.pumaplus.host.queue.QueueSnapshot;
import dev.pumaplus.spi.Autoscaler;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A snapshot ({@link #next}), all durations in ms with µs precision, rates per second:
 * <pre>
 * {"t": epoch ms,
 *  "queue": {"p50_ms", "p95_ms", "p99_ms"      queue time over the last completed second (0 when none),
 *            "predicted_wait_ms"               W_pred now; null while no slot is live,
 *            "depth"},
 *  "arrivals_per_s"                            λ over the last completed second,
 *  "capacity_per_s"                            c · μ = live slots / S_slot; null while S_slot is unknown,
 *  "slots": {"live", "busy", "idle"},
 *  "workers": [{"pid", "index", "generation", "busy", "idle", "rss_bytes" (null when unreadable)}],
 *  "memory": {"host_rss_bytes", "workers_rss_bytes"}     (null when unreadable),
 *  "shed", "dropped", "health_by_host", "health_by_app"  totals since start,
 *  "autoscaler": {"policy", "ticks"} or null,
 *  "decisions": [{"tick", "t", "policy", "action", "delta", "bridge_delta", "units", "tier", "reason"}],
 *  "events": [{"t", "kind", "text"}]}
 * </pre>
 * {@code decisions} holds the autoscaler's decisions not sent before on this stream (on the first snapshot,
 * all it keeps); {@code events} what changed since the previous snapshot: {@code worker_started},
 * {@code worker_died} (a worker process that left while the dispatcher counted links lost without GOAWAY
 * since the previous snapshot: killed, crashed), {@code worker_exited} (one that left otherwise: retired
 * after GOAWAY), {@code restart} (a worker of a newer shepherd generation dialled in) and
 * {@code policy_swap} (another autoscaler, or another policy, is in charge). The first snapshot has no
 * events: it is the baseline.
 *
 * <p>Threading: one feed per stream, called on that stream's event loop only; it keeps the previous
 * snapshot's view to tell what changed.
 */
final class DashboardFeed {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final QueueReadout queue;
    private final Supplier<List<Autoscaler>> autoscalers;

    private boolean started;
    /** Worker pids of the previous snapshot, with their generation. */
    private Map<Long, Long> previousWorkers = new HashMap<>();
    private long previousLost;
    private long newestGeneration;
    private Autoscaler following;
    private String followingPolicy;
    private long lastTick = -1;

    /** @param autoscalers the running autoscalers (empty when autoscaling is off), asked once a snapshot */
    DashboardFeed(QueueReadout queue, Supplier<List<Autoscaler>> autoscalers) {
        this.queue = queue;
        this.autoscalers = autoscalers;
    }

    /** The next snapshot, taken now ({@code nowMillis}: wall clock, ms since the epoch). */
    ObjectNode next(long nowMillis) {
        QueueSnapshot s = queue.snapshot();
        QueueMetrics metrics = queue.metrics();
        QueueMetrics.Window last = metrics.window(1);
        double slotMean = metrics.meanSlotNanos();
        List<Long> pids = s.processes().stream().map(ProcessStatus::pid).toList();
        RuntimeGauges.Sample runtime = RuntimeGauges.sample(pids);

        ObjectNode root = JSON.createObjectNode();
        root.put("t", nowMillis);
        ObjectNode queue = root.putObject("queue");
        queue.put("p50_ms", StatsDocument.millis(last.queue().p50()));
        queue.put("p95_ms", StatsDocument.millis(last.queue().p95()));
        queue.put("p99_ms", StatsDocument.millis(last.queue().p99()));
        putMillis(queue, "predicted_wait_ms", QueueMetrics.predictedWaitNanos(s.depth(), s.busy(), s.capacity(), slotMean));
        queue.put("depth", s.depth());
        root.put("arrivals_per_s", round(last.arrivalsPerSecond(), 3));
        if (Double.isNaN(slotMean) || slotMean <= 0) {
            root.putNull("capacity_per_s");
        } else {
            root.put("capacity_per_s", round(s.live() * 1e9 / slotMean, 3));
        }
        ObjectNode slots = root.putObject("slots");
        slots.put("live", s.live());
        slots.put("busy", s.busy());
        slots.put("idle", s.live() - s.busy());
        ArrayNode workers = root.putArray("workers");
        long workersRss = 0;
        for (ProcessStatus p : s.processes()) {
            ObjectNode w = workers.addObject();
            w.put("pid", p.pid());
            w.put("index", p.workerIndex());
            w.put("generation", p.generation());
            w.put("busy", p.busy());
            w.put("idle", p.idle());
            Long rss = runtime.workerResidentBytes().get(p.pid());
            if (rss == null) {
                w.putNull("rss_bytes");
            } else {
                w.put("rss_bytes", rss);
                workersRss += rss;
            }
        }
        ObjectNode memory = root.putObject("memory");
        putBytes(memory, "host_rss_bytes", runtime.residentBytes());
        putBytes(memory, "workers_rss_bytes", runtime.workerResidentBytes().isEmpty() ? -1 : workersRss);
        root.put("shed", metrics.shed());
        root.put("dropped", s.dropped());
        root.put("health_by_host", metrics.healthChecks(true));
        root.put("health_by_app", metrics.healthChecks(false));

        ArrayNode events = root.putArray("events");
        workerEvents(events, nowMillis, s);
        Autoscaler autoscaler = first(autoscalers.get());
        autoscalerEvents(root, events, nowMillis, autoscaler);
        started = true;
        return root;
    }

    private void workerEvents(ArrayNode events, long now, QueueSnapshot s) {
        Map<Long, Long> current = new HashMap<>();
        for (ProcessStatus p : s.processes()) {
            current.put(p.pid(), p.generation());
        }
        long newest = current.values().stream().mapToLong(Long::longValue).max().orElse(newestGeneration);
        boolean lost = s.lostLinks() > previousLost;
        if (started) {
            if (newest > newestGeneration) {
                event(events, now, "restart", "generation " + newest + " dialled in");
            }
            for (Map.Entry<Long, Long> w : current.entrySet()) {
                if (!previousWorkers.containsKey(w.getKey())) {
                    event(events, now, "worker_started",
                            "worker pid " + w.getKey() + " (generation " + w.getValue() + ")");
                }
            }
            for (Map.Entry<Long, Long> w : previousWorkers.entrySet()) {
                if (!current.containsKey(w.getKey())) {
                    event(events, now, lost ? "worker_died" : "worker_exited", "worker pid " + w.getKey()
                            + (lost ? ": its links closed without GOAWAY" : " retired"));
                }
            }
        }
        previousWorkers = current;
        previousLost = s.lostLinks();
        newestGeneration = Math.max(newestGeneration, newest);
    }

    private void autoscalerEvents(ObjectNode root, ArrayNode events, long now, Autoscaler autoscaler) {
        ArrayNode decisions = root.putArray("decisions");
        if (autoscaler == null) {
            root.putNull("autoscaler");
            following = null;
            return;
        }
        String policy = autoscaler.policyId();
        if (autoscaler != following) {
            if (started && followingPolicy != null) {
                event(events, now, "policy_swap", (followingPolicy == null ? "autoscaler" : followingPolicy) + " → "
                        + policy);
            }
            following = autoscaler;
            lastTick = -1; // tick numbers start again with each autoscaler
        }
        followingPolicy = policy;
        ObjectNode status = root.putObject("autoscaler");
        status.put("policy", policy);
        status.put("ticks", autoscaler.ticks());
        for (Autoscaler.TickDecision d : autoscaler.decisionsAfter(lastTick)) {
            ObjectNode n = decisions.addObject();
            n.put("tick", d.tick());
            n.put("t", d.epochMillis());
            n.put("policy", d.policyId());
            n.put("action", d.action());
            n.put("delta", d.delta());
            n.put("bridge_delta", d.bridgeDelta());
            n.put("units", d.units());
            n.put("tier", d.tier());
            n.put("reason", d.reason());
            lastTick = d.tick();
        }
    }

    private static Autoscaler first(List<Autoscaler> running) {
        return running.isEmpty() ? null : running.get(0);
    }

    private static void event(ArrayNode events, long now, String kind, String text) {
        events.addObject().put("t", now).put("kind", kind).put("text", text);
    }

    private static void putMillis(ObjectNode node, String name, double nanos) {
        if (Double.isNaN(nanos) || Double.isInfinite(nanos)) {
            node.putNull(name);
        } else {
            node.put(name, StatsDocument.millis(Math.round(nanos)));
        }
    }

    private static void putBytes(ObjectNode node, String name, long bytes) {
        if (bytes < 0) {
            node.putNull(name);
        } else {
            node.put(name, bytes);
        }
    }

    private static java.math.BigDecimal round(double value, int scale) {
        return java.math.BigDecimal.valueOf(value).setScale(scale, java.math.RoundingMode.HALF_UP);
    }
}
