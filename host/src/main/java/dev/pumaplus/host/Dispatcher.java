/*
 * The host's one request queue: protocol bundles submit runnable requests here, and idle worker links take
 * them oldest first. The queue step of the request path (parse → queue → dispatch), and the only place
 * queue depth, busy and live slots are counted.
 */
package dev.pumaplus.host;

import dev.pumaplus.spi.Exchange;
import dev.pumaplus.spi.RequestHead;
import dev.pumaplus.spi.RequestQueue;
import dev.pumaplus.spi.ResponseSink;
import dev.pumaplus.wire.PairList;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntConsumer;

/**
 * The {@link RequestQueue} service: one structure under one lock, holding the FIFO of runnable requests
 * and the deque of idle worker links. Invariant: at most one of the two is non-empty. A submitted request
 * goes to an idle link at once or waits; a link that becomes idle takes the oldest waiting request or
 * waits.
 *
 * <p>Fairness (see {@link RequestQueue}): at most one request per client connection is in the FIFO. A
 * connection's further requests are held behind it and enter the FIFO tail, in order, once their
 * predecessor is dispatched (or cancelled). Queue depth counts waiting and held requests.
 *
 * <p>Choice of link: among idle links, the one whose worker process has the fewest busy links (ties: the
 * longest idle). Threads of one Ruby process share a GVL, so spreading concurrent requests across
 * processes first gives each request the most CPU.
 *
 * <p>Timing: T2b ({@link QueuedExchange#runnableNanos}) is read in submit just before the queue is
 * entered (after the env pair list is encoded), and T3
 * ({@link QueuedExchange#dispatchedNanos}) at dispatch, when the request is assigned to a link under the
 * lock, both {@link System#nanoTime()}; queue time is T3 − T2b, recorded into {@link #metrics()} right
 * after the lock is released, as body wait (T2b − T2) and upstream time (X-Request-Start) are at submit
 * and slot time (T3 → the link idle again) when a link finishes. The event-loop hop from the dispatcher to
 * the link is therefore dispatch-to-call (T3 → T4), not queue time: the request already had its slot.
 *
 * <p>Shedding (docs/CONTROL.md, "Shedding"): a request that would wait is refused at submit, answered
 * 503 with {@code Retry-After} at once, when its predicted wait W_pred = (L + 1) · S_slot / c exceeds
 * the configured limit ({@link #shedding}); never while no slot is live or S_slot is unknown (boot), and
 * never a health check. Shed requests are counted ({@link Snapshot#shed()}).
 *
 * <p>Health checks ({@link #healthCheck}): a request for the configured path is either answered by the host
 * itself from what it knows (live slots, depth, W_pred), never reaching a worker, or enters the FIFO at
 * its head instead of its tail, so it waits for the next free slot and never behind app requests.
 *
 * <p>Threading: every method is thread-safe. Work that touches a channel (starting a request on a link,
 * answering a sink) happens after the lock is released.
 */
final class Dispatcher implements RequestQueue {

    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<QueuedExchange> runnable = new ArrayDeque<>();
    private final ArrayDeque<WorkerLink> idle = new ArrayDeque<>();
    private final Map<Object, ConnectionLine> lines = new IdentityHashMap<>();
    private final Map<Long, WorkerProcess> processes = new HashMap<>();
    private final List<WorkerLink> links = new ArrayList<>();
    private final AtomicLong requestIds = new AtomicLong();
    private final ByteBufAllocator alloc;
    private final QueueMetrics metrics = new QueueMetrics();
    private volatile IntConsumer liveLinksChanged = n -> { };
    /** Config {@code server_timing}: links add a Server-Timing header to each response head. */
    private volatile boolean serverTiming;
    /** Config {@code log_requests}: the per-request timing line, or null when off. */
    private volatile RequestLog requestLog;

    /** W_pred above which a request that would wait is shed, ns; +Infinity = never shed. */
    private volatile double shedLimitNanos = Double.POSITIVE_INFINITY;
    /** The health check path (no query), or null; and whether the host answers it itself. */
    private volatile String healthPath;
    private volatile boolean healthByHost;

    /** Set by {@link #drain}: later submits are answered 503 on this executor. Guarded by the lock. */
    private java.util.concurrent.Executor closedLoop;
    private int depth;
    private int busy;
    private int live;
    private long dropped;
    private long completed;
    private long shed;

    /** @param alloc allocator for the env payloads */
    Dispatcher(ByteBufAllocator alloc) {
        this.alloc = alloc;
    }

    /** The request timing aggregate every link and exchange of this dispatcher records into. */
    QueueMetrics metrics() {
        return metrics;
    }

    /** Requests submitted since start (λ's numerator). Any thread. */
    long submitted() {
        return requestIds.get();
    }

    /** Switches the Server-Timing response header (config {@code server_timing}) on or off. */
    void serverTiming(boolean on) {
        serverTiming = on;
    }

    boolean serverTiming() {
        return serverTiming;
    }

    /** Sets the per-request timing line (config {@code log_requests}); null switches it off. */
    void requestLog(RequestLog log) {
        requestLog = log;
    }

    RequestLog requestLog() {
        return requestLog;
    }

    /**
     * Config {@code shed_wait_limit}: requests whose predicted wait exceeds {@code limitNanos} are answered
     * 503 at once; {@code Double.POSITIVE_INFINITY} switches shedding off.
     */
    void shedding(double limitNanos) {
        shedLimitNanos = limitNanos;
    }

    /**
     * Config {@code health_check_path}: requests for {@code path} (any query) are never shed and never
     * wait behind app requests; with {@code answerByHost} the host answers them without a worker. A null
     * path switches this off.
     */
    void healthCheck(String path, boolean answerByHost) {
        healthByHost = answerByHost;
        healthPath = path;
    }

    /** Called (outside the lock, on a link's event loop) with the new live-link count after each change. */
    void onLiveLinksChanged(IntConsumer listener) {
        this.liveLinksChanged = listener;
    }

    @Override
    public Exchange submit(Object connection, RequestHead head, ByteBuf body, boolean bodyComplete,
                           ResponseSink sink) {
        long id = requestIds.incrementAndGet();
        boolean health = isHealthCheck(head.target());
        if (health && healthByHost) {
            body.release();
            return answerHealth(sink);
        }
        ByteBuf env = PairList.encode(alloc, EnvEncoder.pairs(head, id));
        QueuedExchange ex = new QueuedExchange(this, connection, id, head, env, body, bodyComplete, sink);
        WorkerLink target = null;
        java.util.concurrent.Executor refuse;
        double shedWait = Double.NaN;
        double limit = shedLimitNanos;
        double slotMean = metrics.cachedMeanSlotNanos();
        // T2b once the exchange is built, right before the queue is entered: building the env and the
        // exchange is the host's own work with a slot possibly free, not a wait for one (on a cold JVM the
        // first requests spend a millisecond there), so it must not count as queue time.
        long runnableNanos = System.nanoTime();
        ex.runnableNanos = runnableNanos;
        lock.lock();
        try {
            refuse = closedLoop;
            ConnectionLine line = lines.get(connection);
            if (refuse != null) {
                ex.state = QueuedExchange.State.CANCELLED;
            } else if (!health && limit < Double.POSITIVE_INFINITY && live > 0 && !Double.isNaN(slotMean)
                    && (line != null || idle.isEmpty())
                    && (depth + 1) * slotMean / live > limit) {
                // It would wait longer than the limit: refuse now rather than let the client time out in
                // the queue while the slots serve requests whose clients have given up too.
                shedWait = (depth + 1) * slotMean / live;
                ex.state = QueuedExchange.State.CANCELLED;
                shed++;
            } else if (health && line == null && idle.isEmpty()) {
                enqueue(ex);
                runnable.removeLast();
                runnable.addFirst(ex); // jumps the queue: next free slot
            } else if (line != null) {
                ex.state = QueuedExchange.State.HELD;
                line.held.add(ex);
                depth++;
            } else if ((target = takeIdle()) != null) {
                assign(ex, target);
            } else {
                enqueue(ex);
            }
        } finally {
            lock.unlock();
        }
        if (target != null) {
            dispatch(ex, target);
        } else if (!Double.isNaN(shedWait)) {
            ex.discard();
            ex.answer(503, List.of(Map.entry("Retry-After", Long.toString(retryAfterSeconds(shedWait)))),
                    "server busy: predicted wait " + Math.round(shedWait / 1e6) + " ms exceeds "
                            + Math.round(limit / 1e6) + " ms\n");
        } else if (refuse != null) {
            ex.discard();
            refuse.execute(() -> ex.fail(503, "server shutting down", false));
        }
        recordUpstream(head);
        return ex;
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
     * says what the host knows. No worker is involved and nothing is queued.
     */
    private Exchange answerHealth(ResponseSink sink) {
        Snapshot s = snapshot();
        double wait = QueueMetrics.predictedWaitNanos(s.depth(), s.busy(), s.live(), metrics.cachedMeanSlotNanos());
        String waitMs = Double.isNaN(wait) || Double.isInfinite(wait) ? "null" : Long.toString(Math.round(wait / 1e6));
        boolean ok = s.live() > 0;
        String json = "{\"status\":\"" + (ok ? "ok" : "no live slot") + "\",\"live_slots\":" + s.live()
                + ",\"busy_slots\":" + s.busy() + ",\"queue_depth\":" + s.depth() + ",\"predicted_wait_ms\":" + waitMs
                + "}\n";
        HostAnswer answer = new HostAnswer(this, sink);
        answer.send(ok ? 200 : 503, List.of(Map.entry("Content-Type", "application/json"),
                Map.entry("Cache-Control", "no-store")), json);
        return answer;
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

    /** After the lock: records queue time T3 − T2b and sends {@code ex} to {@code link}. */
    private void dispatch(QueuedExchange ex, WorkerLink link) {
        metrics.queue.record(ex.dispatchedNanos - ex.runnableNanos);
        link.start(ex);
    }

    /** A queued request is removed and never dispatched; a running one has its response discarded. */
    void cancel(QueuedExchange ex) {
        List<Assignment> assignments = null;
        boolean dispatched = false;
        lock.lock();
        try {
            switch (ex.state) {
                case WAITING -> {
                    runnable.remove(ex);
                    depth--;
                    dropped++;
                    ex.state = QueuedExchange.State.CANCELLED;
                    assignments = new ArrayList<>(1);
                    promote(ex.connection, assignments);
                }
                case HELD -> {
                    lines.get(ex.connection).held.remove(ex);
                    depth--;
                    dropped++;
                    ex.state = QueuedExchange.State.CANCELLED;
                }
                case DISPATCHED -> dispatched = true;
                default -> {
                    return;
                }
            }
            ex.cancelled = true;
        } finally {
            lock.unlock();
        }
        if (dispatched) {
            ex.link.truncate(ex);
        } else {
            ex.discard();
        }
        startAll(assignments);
    }

    /** A worker link said HELLO: it is a live slot and idle. Called on its event loop. */
    void linkReady(WorkerLink link) {
        List<Assignment> assignments = new ArrayList<>(1);
        int liveNow;
        lock.lock();
        try {
            WorkerProcess process = processes.computeIfAbsent(link.hello.pid(),
                    pid -> new WorkerProcess(pid, link.hello.workerIndex(), System.currentTimeMillis()));
            link.process = process;
            link.live = true;
            process.live++;
            live++;
            links.add(link);
            makeIdle(link, assignments);
            liveNow = live;
        } finally {
            lock.unlock();
        }
        startAll(assignments);
        liveLinksChanged.accept(liveNow);
    }

    /**
     * The request on {@code link} is finished (both END_STREAMs). Returns true if the link is draining and
     * should be closed now. Called on the link's event loop.
     */
    boolean linkFinished(WorkerLink link, QueuedExchange ex) {
        List<Assignment> assignments = new ArrayList<>(1);
        boolean close;
        lock.lock();
        try {
            ex.state = QueuedExchange.State.DONE;
            link.exchange = null;
            busy--;
            link.process.busy--;
            link.completed++;
            link.process.completed++;
            completed++;
            close = link.draining;
            if (!close) {
                makeIdle(link, assignments);
            }
        } finally {
            lock.unlock();
        }
        metrics.slot.record(System.nanoTime() - ex.dispatchedNanos);
        startAll(assignments);
        return close;
    }

    /** The worker sent GOAWAY: dispatch nothing more to it. Returns true if it is idle (close it now). */
    boolean linkDraining(WorkerLink link) {
        lock.lock();
        try {
            link.draining = true;
            if (link.idle) {
                idle.remove(link);
                link.idle = false;
            }
            return link.exchange == null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The link's channel closed. Returns the exchange that was dispatched to it and not finished, or null;
     * the caller answers its client. Called on the link's event loop.
     */
    QueuedExchange linkClosed(WorkerLink link) {
        int liveNow;
        QueuedExchange ex;
        lock.lock();
        try {
            if (!link.live) {
                return null;
            }
            link.live = false;
            links.remove(link);
            if (link.idle) {
                idle.remove(link);
                link.idle = false;
            }
            live--;
            WorkerProcess process = link.process;
            process.live--;
            ex = link.exchange;
            if (ex != null) {
                link.exchange = null;
                ex.state = QueuedExchange.State.DONE;
                busy--;
                process.busy--;
            }
            if (process.live == 0) {
                processes.remove(process.pid);
            }
            liveNow = live;
        } finally {
            lock.unlock();
        }
        liveLinksChanged.accept(liveNow);
        return ex;
    }

    /** Stops dispatching to every link (shutdown): the links are returned, idle ones first. */
    List<WorkerLink> drainLinks() {
        lock.lock();
        try {
            for (WorkerLink link : links) {
                link.draining = true;
                link.idle = false;
            }
            idle.clear();
            return new ArrayList<>(links);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Removes every waiting and held request (shutdown timeout) and returns them; the caller answers them.
     * They are not counted as dropped: the host gave up on them, not the client.
     */
    List<QueuedExchange> removeQueued() {
        lock.lock();
        try {
            List<QueuedExchange> removed = new ArrayList<>(runnable);
            for (ConnectionLine line : lines.values()) {
                removed.addAll(line.held);
            }
            runnable.clear();
            lines.clear();
            depth = 0;
            for (QueuedExchange ex : removed) {
                ex.state = QueuedExchange.State.CANCELLED;
            }
            return removed;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Graceful stop, after the listeners stopped accepting: waits until nothing waits and nothing runs, at
     * most {@code timeoutNanos}; then answers every queued request 503 (on {@code loop}) and closes every
     * busy link, which answers its request 503 too. Either way no request is dispatched afterwards:
     * a later submit is answered 503 at once.
     * Blocks the calling thread (the launcher's); polls every 10 ms.
     *
     * @return true if everything finished within the timeout
     */
    boolean drain(long timeoutNanos, java.util.concurrent.Executor loop) {
        long deadline = System.nanoTime() + timeoutNanos;
        while (!isDrained() && System.nanoTime() - deadline < 0) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        boolean drained = isDrained();
        lock.lock();
        try {
            closedLoop = loop;
        } finally {
            lock.unlock();
        }
        List<QueuedExchange> queued = removeQueued();
        List<WorkerLink> all = drainLinks();
        for (QueuedExchange ex : queued) {
            ex.discard();
            loop.execute(() -> ex.fail(503, "server shutting down", false));
        }
        for (WorkerLink link : all) {
            if (link.exchange != null) {
                link.close(503, "server shutting down");
            }
        }
        return drained;
    }

    /**
     * Live links whose HELLO named shepherd generation {@code generation}: how the launcher tells that a
     * new generation (hot restart, config reload) has dialled in before it retires the old one.
     */
    int liveLinks(long generation) {
        lock.lock();
        try {
            int n = 0;
            for (WorkerLink link : links) {
                if (link.hello.generation() == generation && !link.draining) {
                    n++;
                }
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    /** True when nothing waits and nothing runs. */
    boolean isDrained() {
        lock.lock();
        try {
            return depth == 0 && busy == 0;
        } finally {
            lock.unlock();
        }
    }

    /** A consistent snapshot of the counters, for the control app and tests. */
    Snapshot snapshot() {
        lock.lock();
        try {
            List<ProcessStatus> status = new ArrayList<>(processes.size());
            for (WorkerProcess p : processes.values()) {
                status.add(new ProcessStatus(p.pid, p.workerIndex, p.startedAtMillis, p.live, p.live - p.busy,
                        p.busy, p.completed));
            }
            status.sort((a, b) -> a.workerIndex != b.workerIndex
                    ? Long.compare(a.workerIndex, b.workerIndex) : Long.compare(a.pid, b.pid));
            return new Snapshot(depth, busy, live, dropped, completed, status, shed);
        } finally {
            lock.unlock();
        }
    }

    // --- under the lock ---------------------------------------------------------------------------------

    private void enqueue(QueuedExchange ex) {
        ex.state = QueuedExchange.State.WAITING;
        runnable.add(ex);
        lines.put(ex.connection, new ConnectionLine());
        depth++;
    }

    private void assign(QueuedExchange ex, WorkerLink link) {
        ex.state = QueuedExchange.State.DISPATCHED;
        ex.dispatchedNanos = System.nanoTime();
        ex.link = link;
        link.exchange = ex;
        busy++;
        link.process.busy++;
    }

    private void makeIdle(WorkerLink link, List<Assignment> assignments) {
        link.idle = true;
        idle.add(link);
        while (!runnable.isEmpty() && !idle.isEmpty()) {
            QueuedExchange ex = runnable.poll();
            depth--;
            WorkerLink target = takeIdle();
            assign(ex, target);
            assignments.add(new Assignment(ex, target));
            promote(ex.connection, assignments);
        }
    }

    /** The connection's waiting request left the FIFO: its next held request, if any, takes its place. */
    private void promote(Object connection, List<Assignment> assignments) {
        ConnectionLine line = lines.remove(connection);
        if (line == null || line.held.isEmpty()) {
            return;
        }
        QueuedExchange next = line.held.poll();
        WorkerLink target = takeIdle();
        if (target != null) {
            depth--;
            assign(next, target);
            assignments.add(new Assignment(next, target));
            if (!line.held.isEmpty()) {
                lines.put(connection, line);
                promote(connection, assignments);
            }
            return;
        }
        next.state = QueuedExchange.State.WAITING;
        runnable.add(next);
        lines.put(connection, line);
    }

    private WorkerLink takeIdle() {
        WorkerLink best = null;
        for (WorkerLink link : idle) {
            if (best == null || link.process.busy < best.process.busy) {
                best = link;
                if (link.process.busy == 0) {
                    break;
                }
            }
        }
        if (best != null) {
            if (best == idle.peekFirst()) {
                idle.pollFirst();
            } else {
                idle.remove(best);
            }
            best.idle = false;
        }
        return best;
    }

    private void startAll(List<Assignment> assignments) {
        if (assignments != null) {
            for (Assignment a : assignments) {
                dispatch(a.exchange, a.link);
            }
        }
    }

    /** Requests of one client connection held behind its one waiting request. */
    private static final class ConnectionLine {
        final ArrayDeque<QueuedExchange> held = new ArrayDeque<>(2);
    }

    private record Assignment(QueuedExchange exchange, WorkerLink link) {
    }

    /** Per worker process: live, idle and busy links, requests completed on them. */
    record ProcessStatus(long pid, long workerIndex, long startedAtMillis, int live, int idle, int busy,
                         long completed) {
    }

    /**
     * @param depth     requests waiting in the FIFO or held behind their connection's waiting request
     * @param busy      links running a request
     * @param live      links said HELLO and not closed
     * @param dropped   requests cancelled by their client before dispatch
     * @param completed requests finished on a link
     * @param shed      requests answered 503 at submit because their predicted wait exceeded the limit
     */
    record Snapshot(int depth, int busy, int live, long dropped, long completed, List<ProcessStatus> processes,
                    long shed) {
    }
}
