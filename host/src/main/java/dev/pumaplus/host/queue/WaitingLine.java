/*
 * The requests that wait for a slot (queue → dispatch): the fair FIFO and the held requests behind it, their
 * count (queue depth) and the hot-queue watch over the oldest of them. Owned by the Dispatcher, which takes a
 * request from here for each slot it pairs; admission reads the depth.
 */
package dev.pumaplus.host.queue;

import dev.pumaplus.host.measure.NanoClock;
import dev.pumaplus.host.queue.SlotRoster.Slot;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A waiting request's life until a slot takes it: it enters the {@link FairFifo} or is held behind its
 * connection's waiting request, is promoted into the FIFO when that one is dispatched, may be cancelled
 * (the client went away) or, when its link closed before its worker had it, requeued at the head; each
 * step moves its {@link Ticket}'s state and the depth (waiting and held requests) together. Whenever a
 * request enters the FIFO the {@link HotQueueWatch} is armed for the oldest one.
 *
 * <p>Threading: owned by one {@link Dispatcher} and never shared; every method is called with that
 * dispatcher's lock held, which guards this state, except {@link #depthNow} (a moment's view for admission)
 * and {@link #watchHot} (any thread). Nothing here allocates on the request path.
 */
final class WaitingLine {

    private final FairFifo fifo = new FairFifo();
    private final NanoClock clock;
    private final HotQueueWatch hot;
    // Written under the dispatcher's lock only; also read without it, for admission.
    private final AtomicInteger depth = new AtomicInteger();

    /**
     * @param clock    how long the oldest request has waited is read from it
     * @param hotCheck the dispatcher's hot-queue check, scheduled on the watcher's timer
     */
    WaitingLine(NanoClock clock, Runnable hotCheck) {
        this.clock = clock;
        this.hot = new HotQueueWatch(clock, hotCheck);
    }

    /** Requests waiting or held now (L), read without the lock. */
    int depthNow() {
        return depth.getOpaque();
    }

    /** Requests waiting or held. */
    int depth() {
        return depth.getPlain();
    }

    /** Whether no request waits in the FIFO. */
    boolean isEmpty() {
        return fifo.isEmpty();
    }

    /** Holds {@code t} behind its connection's waiting request, if it has one; returns whether it did. */
    boolean holdIfBehind(Ticket t) {
        if (!fifo.waiting(t.exchange.connection)) {
            return false;
        }
        t.held();
        fifo.hold(t);
        changeDepth(+1);
        return true;
    }

    /** {@code t} waits at the FIFO's tail, or at its head with {@code jump} (the health check). */
    void enter(Ticket t, boolean jump) {
        t.waiting();
        fifo.enter(t, jump);
        changeDepth(+1);
        armHot();
    }

    /**
     * Removes a waiting or held {@code t} for good (its client went away) and marks it cancelled; returns
     * false, changing nothing, when it neither waits nor is held.
     */
    boolean remove(Ticket t) {
        switch (t.state()) {
            case WAITING -> promoted(fifo.removeWaiting(t));
            case HELD -> fifo.removeHeld(t);
            default -> {
                return false;
            }
        }
        t.cancelled();
        changeDepth(-1);
        return true;
    }

    /**
     * The oldest waiting request {@code slot} may run ({@link FairFifo#poll}), no longer counted as waiting;
     * or null. The caller assigns it, then calls {@link #promoteAfter}.
     */
    Ticket poll(Slot slot, SlotRoster roster) {
        Ticket t = fifo.poll(slot, roster);
        if (t != null) {
            changeDepth(-1);
        }
        return t;
    }

    /** {@code t} was dispatched: its connection's next held request, if any, waits in the FIFO now. */
    void promoteAfter(Ticket t) {
        promoted(fifo.promote(t.exchange.connection));
    }

    /**
     * Puts a request its link never delivered back at the FIFO's head ({@link FairFifo#requeue}); a successor
     * of its connection that was promoted at its dispatch is held again.
     */
    void requeue(Ticket t) {
        Ticket successor = fifo.requeue(t);
        if (successor != null) {
            successor.held();
        }
        t.requeued();
        changeDepth(+1);
        armHot();
    }

    /** Empties the line (the queue closes): every request it had, each marked cancelled. */
    List<Ticket> clear() {
        List<Ticket> queued = fifo.clear();
        depth.setOpaque(0);
        for (Ticket t : queued) {
            t.cancelled();
        }
        return queued;
    }

    // --- the hot-queue watch ------------------------------------------------------------------------------

    /** Sets the hot-queue watch ({@link HotQueueWatch#watch}); the caller then calls {@link #armHot}. Any thread. */
    void watchHot(long thresholdNanos, ScheduledExecutorService timer, Runnable onHot) {
        hot.watch(thresholdNanos, timer, onHot);
    }

    /** Arms the watch for the oldest request in the FIFO, if one waits (after a request entered it). */
    void armHot() {
        Ticket oldest = fifo.oldest();
        if (oldest != null) {
            hot.arm(oldest.exchange.runnableNanos);
        }
    }

    /**
     * The watch's scheduled check ({@link HotQueueWatch#check}), {@code saturated} when every slot that may
     * run is busy: the watcher to call after the lock is released, or null.
     */
    Runnable checkHot(boolean saturated) {
        Ticket oldest = fifo.oldest();
        return hot.check(oldest == null ? HotQueueWatch.NONE_WAITING : oldest.exchange.runnableNanos, saturated);
    }

    /** How long the oldest request in the FIFO has waited now, ns (from its T2b); 0 when none waits. */
    long oldestWaitNanos() {
        Ticket oldest = fifo.oldest();
        return oldest == null ? 0 : Math.max(0, clock.nanoTime() - oldest.exchange.runnableNanos);
    }

    /** A held request {@link FairFifo#promote}d into the FIFO (null: none) waits there now. */
    private void promoted(Ticket next) {
        if (next != null) {
            next.waiting();
            armHot();
        }
    }

    /** Under the lock: a plain read, then an opaque write for admission's reads without it. */
    private void changeDepth(int delta) {
        depth.setOpaque(depth.getPlain() + delta);
    }
}
