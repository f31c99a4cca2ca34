/*
 * The front door of the host's request queue (parse → admission → queue): the RequestQueue service the
 * protocol bundles submit to. It answers the health check path itself or lets it jump the queue, sheds a
 * request predicted to wait too long, and hands every other request to the Dispatcher.
 */
package dev.pumaplus.host.queue;

import dev.pumaplus.host.measure.QueueMetrics;
import dev.pumaplus.host.measure.TimingHistogram;
import dev.pumaplus.spi.Exchange;
import dev.pumaplus.spi.RequestBodyBuffer;
import dev.pumaplus.spi.RequestHead;
import dev.pumaplus.spi.RequestQueue;
import dev.pumaplus.spi.ResponseBackpressure;
import dev.pumaplus.spi.ResponseSink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.channels.FileChannel;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Each submitted request gets an id, its env pair list (encoded once, here) and T2b, then one of:
 * <ul>
 *   <li>Health check answered by the host ({@link #healthCheck} with {@code answerByHost}): 200 while at
 *       least one slot is live, else 503, with a JSON body of what the host knows (live and busy slots,
 *       depth, W_pred). Nothing is queued and no worker is involved.</li>
 *   <li>Shed (docs/CONTROL.md, "Shedding"): a request that would wait is answered 503 with
 *       {@code Retry-After} at once when its predicted wait W_pred = (L + 1) · S_slot / c exceeds the limit
 *       ({@link #shedding}); never while no slot is live or S_slot is unknown (boot), and never a health
 *       check. Counted in {@link QueueMetrics#shed()} and as a 5xx.</li>
 *   <li>Queued: the {@link Dispatcher} places it; a health check the app answers enters the FIFO at its
 *       head, so it takes the next free slot and never waits behind app requests.</li>
 * </ul>
 *
 * <p>The shed decision reads the dispatcher's depth, live and idle counts without its lock: a moment's
 * view, so admission never adds a lock to the request path. T2b is read after the env is encoded and right
 * before the request is queued: the host's own work with a slot possibly free is not a wait for one. It is
 * read from the dispatcher's clock, the one T3 is read from, so T3 − T2b is one clock's difference.
 *
 * <p>Threading: every method is thread-safe; {@link #submit} runs on the protocols' event loops.
 */
public final class Admission implements RequestQueue {

    private final Dispatcher dispatcher;
    private final ByteBufAllocator alloc;
    private final RequestReporting reporting;
    private final AtomicLong requestIds = new AtomicLong();
    /** W_pred above which a request that would wait is shed, ns; +Infinity = never shed. */
    private volatile double shedLimitNanos = Double.POSITIVE_INFINITY;
    /** The health check path (no query), or null; and whether the host answers it itself. */
    private volatile String healthPath;
    private volatile boolean healthByHost;

    /**
     * @param alloc     allocator for the env payloads
     * @param reporting where each request's timing goes
     */
    public Admission(Dispatcher dispatcher, ByteBufAllocator alloc, RequestReporting reporting) {
        this.dispatcher = dispatcher;
        this.alloc = alloc;
        this.reporting = reporting;
    }

    /** Requests submitted since start (λ's numerator), host-answered and shed ones included. Any thread. */
    public long submitted() {
        return requestIds.get();
    }

    /**
     * Config {@code shed_wait_limit}: requests whose predicted wait exceeds {@code limitNanos} are answered
     * 503 at once; {@code Double.POSITIVE_INFINITY} switches shedding off.
     */
    public void shedding(double limitNanos) {
        shedLimitNanos = limitNanos;
    }

    /**
     * Config {@code health_check_path}: requests for {@code path} (any query) are never shed and never
     * wait behind app requests; with {@code answerByHost} the host answers them without a worker. A null
     * path switches this off.
     */
    public void healthCheck(String path, boolean answerByHost) {
        healthByHost = answerByHost;
        healthPath = path;
    }

    @Override
    public RequestBodyBuffer bodyBuffer(long limitBytes, RequestBodyBuffer.Submitter submitter) {
        return new SpoolingBodyBuffer(limitBytes, submitter);
    }

    @Override
    public ResponseBackpressure backpressure() {
        return new ResponseWaterMarks();
    }

    @Override
    public Exchange submit(Object connection, RequestHead head, ByteBuf body, FileChannel bodyFile,
                           ResponseSink sink) {
        return submit(connection, head, body, bodyFile, sink, List.of(), 0);
    }

    /**
     * {@link #submit(Object, RequestHead, ByteBuf, FileChannel, ResponseSink)} with {@code extraEnv} appended to
     * the env pairs (a WebSocket event's {@code puma_plus.websocket.*}, docs/WEBSOCKETS.md), dispatched
     * only to a link of worker process {@code stickyPid} while that process has one (0: any link).
     */
    Exchange submit(Object connection, RequestHead head, ByteBuf body, FileChannel bodyFile, ResponseSink sink,
                    List<Map.Entry<String, String>> extraEnv, long stickyPid) {
        reporting.metrics().arrived(); // before the count: this submit belongs to the second under way
        long id = requestIds.incrementAndGet();
        boolean health = isHealthCheck(head.target());
        boolean byHost = healthByHost;
        if (health) {
            reporting.metrics().countHealthCheck(byHost);
        }
        if (health && byHost) {
            body.release();
            SpoolingBodyBuffer.closeSpool(bodyFile);
            answerHealth(sink);
            return HostAnswer.DONE;
        }
        ByteBuf env = EnvEncoder.payload(alloc, head, id, extraEnv);
        long runnable = dispatcher.clock().nanoTime(); // T2b
        QueuedExchange ex = new QueuedExchange(dispatcher, reporting, connection, id, head, runnable, env, body,
                bodyFile, sink, stickyPid);
        double shedWait = health ? Double.NaN : shedWait();
        if (Double.isNaN(shedWait)) {
            dispatcher.enqueue(ex, health);
        } else {
            // It would wait longer than the limit: refuse now rather than let the client time out in the
            // queue while the slots serve requests whose clients have given up too.
            reporting.metrics().countShed();
            ex.body.discard();
            ex.response.answer(503, List.of(Map.entry("Retry-After", Long.toString(retryAfterSeconds(shedWait)))),
                    "server busy: predicted wait " + Math.round(shedWait / 1e6) + " ms exceeds "
                            + Math.round(shedLimitNanos / 1e6) + " ms\n");
        }
        recordUpstream(head);
        return ex;
    }

    /** W_pred of a request that would wait, in ns, when it exceeds the shed limit; else NaN (admit it). */
    private double shedWait() {
        double limit = shedLimitNanos;
        // A closed queue answers "shutting down" instead: the request is refused, not shed.
        if (limit == Double.POSITIVE_INFINITY || !dispatcher.wouldWait() || dispatcher.closed()) {
            return Double.NaN;
        }
        int capacity = dispatcher.capacityNow(); // c: the live slots, or the concurrency limit when lower
        double slotMean = reporting.metrics().cachedMeanSlotNanos();
        if (capacity <= 0 || Double.isNaN(slotMean)) {
            return Double.NaN;
        }
        double wait = (dispatcher.depthNow() + 1) * slotMean / capacity;
        return wait > limit ? wait : Double.NaN;
    }

    /** Retry-After for a shed request: the predicted wait rounded up to whole seconds, at least 1. */
    static long retryAfterSeconds(double predictedWaitNanos) {
        return Math.max(1, Math.min(3600, (long) Math.ceil(predictedWaitNanos / 1e9)));
    }

    private boolean isHealthCheck(String target) {
        String path = healthPath;
        if (path == null || !target.startsWith(path)) {
            return false;
        }
        return target.length() == path.length() || target.charAt(path.length()) == '?';
    }

    /**
     * The host's own answer to a health check: 200 while at least one slot is live, else 503; the body
     * says what the host knows. Counted by status like any response.
     */
    private void answerHealth(ResponseSink sink) {
        QueueSnapshot s = dispatcher.snapshot();
        double wait = QueueMetrics.predictedWaitNanos(s.depth(), s.busy(), s.capacity(),
                reporting.metrics().cachedMeanSlotNanos());
        String waitMs = Double.isNaN(wait) || Double.isInfinite(wait) ? "null" : Long.toString(Math.round(wait / 1e6));
        boolean ok = s.live() > 0;
        String json = "{\"status\":\"" + (ok ? "ok" : "no live slot") + "\",\"live_slots\":" + s.live()
                + ",\"busy_slots\":" + s.busy() + ",\"queue_depth\":" + s.depth() + ",\"predicted_wait_ms\":" + waitMs
                + "}\n";
        int status = ok ? 200 : 503;
        reporting.metrics().countStatus(status);
        HostAnswer.write(sink, status, List.of(Map.entry("Content-Type", "application/json"),
                Map.entry("Cache-Control", "no-store")), json);
    }

    /**
     * Upstream queue time: the wall clock at T2 minus the X-Request-Start the load balancer stamped, when
     * it reads and lies within 0..1 hour (clock skew makes small negatives: those are dropped, not clamped).
     */
    private void recordUpstream(RequestHead head) {
        String value = RequestStartHeader.find(head.headers());
        if (value == null) {
            return;
        }
        QueueMetrics metrics = reporting.metrics();
        long wallAtT2 = metrics.epochNanosAt(head.headersParsedNanos());
        long stamped = RequestStartHeader.epochNanos(value, wallAtT2);
        if (stamped == RequestStartHeader.INVALID) {
            return;
        }
        long upstream = wallAtT2 - stamped;
        if (upstream >= 0 && upstream <= TimingHistogram.MAX_NANOS) {
            metrics.upstream.record(upstream);
        }
    }
}
