/*
 * The host's one request queue (queue → dispatch): admitted requests wait here, in one FIFO, for an idle
 * worker link, and idle links wait for requests. With its helpers, the only place queue depth, busy and
 * live slots are counted. Called by the admission step and the exchange; it starts requests on worker
 * links, which report back through LinkListener.
 */
package dev.pumaplus.host.queue;

import dev.pumaplus.host.measure.NanoClock;
import dev.pumaplus.host.measure.QueueMetrics;
import dev.pumaplus.host.queue.SlotRoster.Slot;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntConsumer;

/**
 * One structure under one lock: the waiting requests, their depth and the hot-queue watch over them
 * ({@link WaitingLine}, with {@link FairFifo} and {@link HotQueueWatch}), the idle links and the bookkeeping
 * of every link and worker process ({@link SlotRoster}), the live and running counts and the concurrency
 * limit every start passes ({@link ConcurrencyGate}), the graceful stop ({@link DrainLatch}), and every
 * queued request's {@link Ticket}; the helpers' state is theirs, and only the dispatcher calls them, always
 * under its lock. Invariant: at most one of the FIFO and the idle deque is non-empty (below the concurrency limit, see
 * below), so a link that becomes idle takes the oldest waiting request at once, and a request that finds an
 * idle link is dispatched at once — except for sticky requests (a sticky WebSocket connection's events,
 * {@link QueuedExchange#stickyPid}), which only a link of their worker process may take while that process
 * has one: they wait while other processes' links idle, a link takes the oldest waiting request it may run,
 * and when a process's last link closes its sticky requests become anyone's and go to idle links at once.
 *
 * <p>Fairness across client connections: see {@link FairFifo}. Queue depth counts waiting and held requests.
 * Choice of link: see {@link SlotRoster}. Hot-queue watch ({@link #watchHot}): see {@link HotQueueWatch}.
 * Graceful stop ({@link #drain}): see {@link DrainLatch}.
 *
 * <p>Redispatch: a link that closes reports the request it had been given but never delivered to its worker
 * (the link was closed when it came to it, or the REQUEST frame's write failed); that request goes back to
 * the FIFO's head, ahead of its connection's later requests, and is dispatched again, at most
 * {@link #MAX_DISPATCHES} times in all; after that, or when the queue is closed or the client gone, the link
 * answers it. A request the worker may have had is never sent twice.
 *
 * <p>Timing: T3 is read from the injected {@link NanoClock} when a request is assigned to a link, under
 * the lock, and again at each redispatch; queue time T3 − T2b (T2b taken at admission) is recorded by the
 * link once it has written the REQUEST frame, so it is the T3 of the dispatch that delivered the request and
 * includes the time lost on a dead link. Slot time (T3 → the link idle again) is recorded when the link
 * finishes. The hop from here to the link's event loop is dispatch-to-call (T3 → T4), not queue time: the
 * request already has its slot.
 *
 * <p>Concurrency limit ({@link #concurrencyLimit}): the limit and its window are the {@link ConcurrencyGate}'s,
 * and every request starts on a link through it. A request that finds an idle link but {@code limit}
 * running waits in the FIFO like any other (so the FIFO and the idle deque may both be non-empty then), and
 * a link that finishes takes the next one only below the limit.
 *
 * <p>Threading: every method is thread-safe. Starting a request on a link, answering a refused request
 * and closing a link happen after the lock is released.
 */
public final class Dispatcher implements LinkListener, QueueReadout {

    /** What {@link #cancel} found. */
    enum Cancelled {
        /** The request was waiting or held: it is removed and will never be dispatched. */
        REMOVED,
        /** The request runs on a link: the link must discard the rest of it. */
        RUNNING,
        /** The request was done, refused or cancelled already: nothing to do. */
        NONE
    }

    private static final System.Logger LOG = System.getLogger(Dispatcher.class.getName());

    /**
     * Dispatches of one request, at most: after this many to links that closed before it reached a worker,
     * the last of them answers it.
     */
    static final int MAX_DISPATCHES = 3;

    /** No concurrency limit: every live link may run a request (thread and Ractor slots). */
    public static final int UNLIMITED = Integer.MAX_VALUE;

    private final ReentrantLock lock = new ReentrantLock();
    private final DrainLatch latch = new DrainLatch(lock.newCondition());
    private final WaitingLine line;
    private final SlotRoster roster = new SlotRoster();
    private final NanoClock clock;
    private final QueueMetrics metrics = new QueueMetrics();
    private volatile IntConsumer liveLinksChanged = n -> { };
    private final ConcurrencyGate gate;

    private long dropped;
    private long completed;
    private long lostLinks;
    private long redispatched;

    /** @param clock T3, the end of a slot and (through admission) T2b are read from it */
    public Dispatcher(NanoClock clock) {
        this.clock = clock;
        this.line = new WaitingLine(clock, this::checkHot);
        this.gate = new ConcurrencyGate(clock);
    }

    /** Called (outside the lock, on a link's event loop) with the new live-link count after each change. */
    public void onLiveLinksChanged(IntConsumer listener) {
        this.liveLinksChanged = listener;
    }

    /** The clock T3 is read from; admission reads T2b from it too. */
    NanoClock clock() {
        return clock;
    }

    /** The request timing aggregate: queue and slot time are recorded here, everything else beside it. */
    @Override
    public QueueMetrics metrics() {
        return metrics;
    }

    // --- lock-free reads for admission --------------------------------------------------------------------

    /** Requests waiting or held now (L), read without the lock: a moment's view for admission. */
    int depthNow() {
        return line.depthNow();
    }

    /** Live links now (c), read without the lock. */
    int liveNow() {
        return gate.liveNow();
    }

    /** Whether the queue refuses requests (it was drained: the host is shutting down). Any thread. */
    boolean closed() {
        return latch.closed();
    }

    /**
     * Whether a request admitted now would wait (no idle link, or under a concurrency limit requests already
     * wait), read without the lock.
     */
    boolean wouldWait() {
        return roster.idleNow() == 0 || gate.limitNow() != UNLIMITED && depthNow() > 0;
    }

    /**
     * Requests that may run at once now (c for W_pred): the live links, or the concurrency limit when it is
     * lower. Read without the lock.
     */
    int capacityNow() {
        return Math.min(liveNow(), gate.limitNow());
    }

    // --- requests -----------------------------------------------------------------------------------------

    /**
     * Enters {@code ex} (not yet queued): it goes to an idle link at once, or waits at the FIFO's tail, or
     * at its head with {@code jump} (the health check), or is held behind its connection's waiting request.
     * After a {@link #drain} it is refused instead: answered 503 on the drain's executor. Any thread.
     */
    void enqueue(QueuedExchange ex, boolean jump) {
        Ticket t = ex.ticket;
        Slot target = null;
        Executor refuse;
        lock.lock();
        try {
            refuse = latch.refuser();
            if (refuse != null) {
                t.cancelled();
            } else if (!line.holdIfBehind(t)) { // else it is held behind its connection's waiting request
                if ((target = gate.take(t, roster)) == null) {
                    line.enter(t, jump);
                }
            }
        } finally {
            lock.unlock();
        }
        if (target != null) {
            target.link.start(ex);
        } else if (refuse != null) {
            DrainLatch.refuse(ex, refuse);
        }
    }

    /**
     * The client went away. A waiting or held request is removed and never dispatched (counted as
     * dropped); for a running one the caller tells its link. Any thread.
     */
    Cancelled cancel(Ticket t) {
        lock.lock();
        try {
            if (t.state() == Ticket.State.DISPATCHED) {
                return Cancelled.RUNNING;
            }
            if (!line.remove(t)) {
                return Cancelled.NONE;
            }
            dropped++;
            signalIfDrained();
            return Cancelled.REMOVED;
        } finally {
            lock.unlock();
        }
    }

    // --- links (LinkListener) ----------------------------------------------------------------------

    @Override
    public Object ready(WorkerLink link) {
        Slot slot;
        Ticket next;
        int liveNow;
        lock.lock();
        try {
            slot = roster.join(link);
            liveNow = gate.linkChanged(+1);
            next = gate.nextFor(slot, line, roster);
        } finally {
            lock.unlock();
        }
        if (next != null) {
            link.start(next.exchange);
        }
        liveLinksChanged.accept(liveNow);
        return slot;
    }

    @Override
    public QueuedExchange finished(Object token, long threadWaitNanos) {
        Slot slot = (Slot) token;
        Ticket done;
        Ticket next = null;
        boolean close;
        lock.lock();
        try {
            done = roster.finished(slot);
            done.done();
            gate.finished(done.dispatchedNanos(), threadWaitNanos);
            completed++;
            close = slot.draining;
            if (!close) {
                next = gate.nextFor(slot, line, roster);
            }
            signalIfDrained();
        } finally {
            lock.unlock();
        }
        metrics.slot.record(clock.nanoTime() - done.dispatchedNanos());
        if (close) {
            slot.link.retire();
            return null;
        }
        return next == null ? null : next.exchange;
    }

    @Override
    public void draining(Object token) {
        Slot slot = (Slot) token;
        boolean idleNow;
        lock.lock();
        try {
            roster.drain(slot);
            idleNow = slot.running == null;
        } finally {
            lock.unlock();
        }
        if (idleNow) {
            slot.link.retire();
        }
    }

    @Override
    public QueuedExchange closed(Object token, QueuedExchange delivered) {
        Slot slot = (Slot) token;
        int liveNow;
        Ticket running;
        Ticket requeued = null;
        List<Ticket> released = List.of();
        lock.lock();
        try {
            if (!slot.live) {
                return null;
            }
            boolean last = roster.leave(slot);
            liveNow = gate.linkChanged(-1);
            if (!slot.draining) {
                lostLinks++;
            }
            SlotRoster.WorkerCounts process = slot.process;
            running = roster.dropRunning(slot);
            if (running != null) {
                gate.lost();
                if (running.exchange != delivered && mayRedispatch(running)) {
                    redispatched++;
                    line.requeue(running);
                    requeued = running;
                    running = null;
                } else {
                    running.done();
                }
            }
            if (requeued != null || last) {
                released = gate.dispatchToIdle(process, line, roster);
            }
            signalIfDrained();
        } finally {
            lock.unlock();
        }
        if (requeued != null) {
            // rare (a worker died), and the one trace that its request was not lost: say so
            LOG.log(System.Logger.Level.INFO, slot.link + " closed before its worker had request "
                    + requeued.exchange.requestId + "; it goes back to the head of the queue");
        }
        for (Ticket t : released) {
            t.link().start(t.exchange);
        }
        liveLinksChanged.accept(liveNow);
        return running == null ? null : running.exchange;
    }

    // --- the concurrency limit -----------------------------------------------------------------------------

    /**
     * Sets how many requests may run at once ({@code limit} ≥ 1), or removes the limit ({@link #UNLIMITED}):
     * the launcher sets it to the generation's slot count when its workers run fiber slots, and removes it
     * when they run threads or Ractors. When it rises, waiting requests take idle links up to it at once.
     * Any thread.
     */
    public void concurrencyLimit(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("concurrency limit must be at least 1: " + limit);
        }
        List<Ticket> released;
        lock.lock();
        try {
            gate.set(limit);
            released = gate.dispatchToIdle(null, line, roster);
        } finally {
            lock.unlock();
        }
        for (Ticket t : released) {
            t.link().start(t.exchange);
        }
    }

    /**
     * The controller's limit: like {@link #concurrencyLimit}, but only while a limit is in force (a decision
     * that arrives after the launcher removed it changes nothing). Returns whether it applied. Any thread.
     */
    boolean adjustLimit(int limit) {
        limit = Math.min(limit, UNLIMITED - 1); // a limit never turns itself off
        lock.lock();
        try {
            if (!gate.limited()) {
                return false;
            }
        } finally {
            lock.unlock();
        }
        concurrencyLimit(limit);
        return true;
    }

    /**
     * The concurrency limiter's window since the previous call (or since the limit was set), and a new one
     * begun: requests finished on a link in it, the sum of their slot times (T3 → the link idle) in ns, and
     * the most running at once; with the depth, live links and limit now. Any thread.
     */
    LimitWindow takeLimitWindow() {
        lock.lock();
        try {
            return gate.takeWindow(line.depth());
        } finally {
            lock.unlock();
        }
    }

    // --- shutdown and status ------------------------------------------------------------------------------

    /**
     * Graceful stop, after the listeners stopped accepting: waits until nothing waits and nothing runs, at
     * most {@code timeoutNanos}; then answers every queued request 503 (on {@code loop}) and closes every
     * busy link, which answers its request 503 too. Either way nothing is dispatched afterwards: a later
     * request is answered 503 at once. Blocks the calling thread (the launcher's).
     *
     * @return true if everything finished within the timeout
     */
    public boolean drain(long timeoutNanos, Executor loop) {
        List<Ticket> queued;
        List<WorkerLink> busyLinks = new ArrayList<>();
        boolean done;
        lock.lock();
        try {
            done = latch.await(timeoutNanos, this::isDrainedLocked); // interrupted: closes all the same
            latch.close(loop);
            queued = line.clear(); // not counted as dropped: the host gave up on them, not the client
            for (Slot slot : roster.all()) {
                roster.drain(slot);
                if (slot.running != null) {
                    busyLinks.add(slot.link);
                }
            }
        } finally {
            lock.unlock();
        }
        for (Ticket t : queued) {
            DrainLatch.refuse(t.exchange, loop);
        }
        for (WorkerLink link : busyLinks) {
            link.close(503, "server shutting down");
        }
        return done;
    }

    /**
     * Live links whose HELLO named shepherd generation {@code generation}: how the launcher tells that a
     * new generation (hot restart, config reload) has dialled in before it retires the old one.
     */
    public int liveLinks(long generation) {
        lock.lock();
        try {
            return roster.liveLinks(generation);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public QueueSnapshot snapshot() {
        lock.lock();
        try {
            return new QueueSnapshot(line.depth(), gate.busy(), gate.live(), dropped, completed, lostLinks,
                    redispatched, gate.limit(), roster.statuses());
        } finally {
            lock.unlock();
        }
    }

    // --- under the lock -----------------------------------------------------------------------------------

    private boolean isDrainedLocked() {
        return line.depth() == 0 && gate.busy() == 0;
    }

    private void signalIfDrained() {
        if (latch.waiting() && isDrainedLocked()) {
            latch.signal();
        }
    }

    /** Whether a request its link never delivered may be dispatched again rather than answered. */
    private boolean mayRedispatch(Ticket t) {
        return !latch.closed() && t.dispatches() < MAX_DISPATCHES && !t.exchange.response.cancelled();
    }

    // --- the hot-queue watch ------------------------------------------------------------------------------

    /**
     * Sets the hot-queue watch ({@link HotQueueWatch}), replacing any earlier one; {@code onHot} null stops
     * it. {@code onHot} runs on {@code timer}. Any thread.
     */
    void watchHot(long thresholdNanos, ScheduledExecutorService timer, Runnable onHot) {
        line.watchHot(thresholdNanos, timer, onHot);
        lock.lock();
        try {
            line.armHot(); // requests already waiting are watched from now
        } finally {
            lock.unlock();
        }
    }

    /** How long the oldest request in the FIFO has waited now, ns (from its T2b); 0 when none waits. */
    long oldestWaitNanos() {
        lock.lock();
        try {
            return line.oldestWaitNanos();
        } finally {
            lock.unlock();
        }
    }

    /** The watch's scheduled check, on its timer: decided under the lock, the watcher called after it. */
    private void checkHot() {
        Runnable onHot;
        lock.lock();
        try {
            onHot = line.checkHot(gate.saturated());
        } finally {
            lock.unlock();
        }
        if (onHot != null) {
            try {
                onHot.run();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "hot-queue watcher failed", e);
            }
        }
    }
}
