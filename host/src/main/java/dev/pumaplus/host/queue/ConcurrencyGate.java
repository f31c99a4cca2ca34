/*
 * The dispatch step's enforcement of the concurrency limit (queue → dispatch): every request starts on a link
 * through here, only while fewer than the limit run; with the live links and running count that make the
 * capacity, and the limiter's window of what ran. Called by the Dispatcher; read by admission (capacity for
 * W_pred) and, through the Dispatcher, by the ConcurrencyLimit service.
 */
package dev.pumaplus.host.queue;

import dev.pumaplus.host.measure.NanoClock;
import dev.pumaplus.host.queue.SlotRoster.Slot;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * Live links, requests running on them (busy) and the limit on those (docs/CONTROL.md "The concurrency
 * limit"): while the generation's workers run fiber slots, at most {@code limit} requests run at once,
 * whatever the live links; without a limit ({@link Dispatcher#UNLIMITED}, thread and Ractor slots) each
 * dispatch decision is one comparison more and nothing else changes. Every start of a request on a link
 * goes through {@link #take}, {@link #nextFor} or {@link #dispatchToIdle}, which check the limit, take the
 * request from the {@link WaitingLine}, assign it in the {@link SlotRoster} and read T3. The window is kept
 * beside the limit, only while one is in force: requests finished, the sums of their slot times and of their
 * measured waits for their worker's thread, and the most running at once ({@link #takeWindow}).
 *
 * <p>Threading: owned by one {@link Dispatcher} and never shared; the dispatcher passes its line and roster
 * in for the length of a call. Every method but {@link #limitNow} and {@link #liveNow} is called with that
 * dispatcher's lock held, which guards this state; those two read without it. Nothing allocates on the
 * request path ({@link #dispatchToIdle} and {@link #takeWindow} run only when a link closes or the limit
 * changes, and for the limiter's tick).
 */
final class ConcurrencyGate {

    private static final VarHandle LIMIT;
    private static final VarHandle LIVE;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            LIMIT = lookup.findVarHandle(ConcurrencyGate.class, "limit", int.class);
            LIVE = lookup.findVarHandle(ConcurrencyGate.class, "live", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final NanoClock clock;
    /** Live links (c); also read without the lock, for admission. */
    private int live;
    /** Requests that may run at once: {@link Dispatcher#UNLIMITED}, or the limit of fiber slots. */
    private int limit = Dispatcher.UNLIMITED;
    /** Requests assigned to a link and not yet finished or lost with it. */
    private int busy;
    // The window (kept only while limited): see takeWindow.
    private long windowCompleted;
    private long windowSlotNanos;
    private long windowThreadWaitNanos;
    private int windowPeakBusy;

    /** @param clock T3 is read from it, and the end of a slot for the window's slot time (only while limited) */
    ConcurrencyGate(NanoClock clock) {
        this.clock = clock;
    }

    /** The limit now, read without the dispatcher's lock (a moment's view for admission). */
    int limitNow() {
        return (int) LIMIT.getOpaque(this);
    }

    /** Live links now, read without the dispatcher's lock. */
    int liveNow() {
        return (int) LIVE.getOpaque(this);
    }

    /** Live links. Under the dispatcher's lock. */
    int live() {
        return live;
    }

    /** A link joined (+1) or closed (-1); returns the live links now. Under the dispatcher's lock. */
    int linkChanged(int delta) {
        LIVE.setOpaque(this, live + delta);
        return live;
    }

    /** The limit in force ({@link Dispatcher#UNLIMITED}: none). Under the dispatcher's lock. */
    int limit() {
        return limit;
    }

    /** Whether a limit is in force. Under the dispatcher's lock. */
    boolean limited() {
        return limit != Dispatcher.UNLIMITED;
    }

    /** Requests running now. Under the dispatcher's lock. */
    int busy() {
        return busy;
    }

    /** Whether one more request may start now (fewer than the limit run). Under the dispatcher's lock. */
    boolean admits() {
        return busy < limit;
    }

    /** Whether every request that may run does: the live links or the limit, the lower. Under the lock. */
    boolean saturated() {
        return busy >= Math.min(live, limit);
    }

    /**
     * An idle link for {@code t} ({@link SlotRoster#affinity}), with {@code t} assigned to it, when the limit
     * admits one more; or null. Under the dispatcher's lock.
     */
    Slot take(Ticket t, SlotRoster roster) {
        Slot slot = admits() ? roster.take(roster.affinity(t)) : null;
        if (slot != null) {
            assign(t, slot, roster);
        }
        return slot;
    }

    /**
     * The oldest waiting request {@code slot} may run, assigned to it, when the limit admits one; or null, and
     * {@code slot} becomes idle. Under the dispatcher's lock.
     */
    Ticket nextFor(Slot slot, WaitingLine line, SlotRoster roster) {
        Ticket t = admits() ? line.poll(slot, roster) : null;
        if (t == null) {
            roster.park(slot);
            return null;
        }
        assign(t, slot, roster);
        line.promoteAfter(t);
        return t;
    }

    /**
     * A link of {@code dying} closed: a request it never delivered is back at the FIFO's head, or, at the
     * process's last link, the sticky requests that waited for it may run anywhere now; so idle links take
     * them, those of other processes first (the dying one's other links may be dead too, not yet seen
     * closed). With {@code dying} null: the limit rose, and waiting requests take idle links up to it. Below
     * the limit only. Returns the requests assigned, for the caller to start after its lock. Under the lock.
     */
    List<Ticket> dispatchToIdle(SlotRoster.WorkerCounts dying, WaitingLine line, SlotRoster roster) {
        if (line.isEmpty() || !roster.anyIdle()) {
            return List.of();
        }
        List<Ticket> assigned = new ArrayList<>();
        for (Slot slot : roster.idleCandidates(dying)) {
            if (!admits()) {
                break;
            }
            Ticket t = line.poll(slot, roster);
            if (t != null) {
                roster.unpark(slot);
                assign(t, slot, roster);
                line.promoteAfter(t);
                assigned.add(t);
            }
        }
        return assigned;
    }

    /** Assigns {@code t} to {@code slot}: T3 is read now. */
    private void assign(Ticket t, Slot slot, SlotRoster roster) {
        t.dispatched(slot.link, clock.nanoTime());
        roster.run(slot, t);
        busy++;
        if (limit != Dispatcher.UNLIMITED && busy > windowPeakBusy) {
            windowPeakBusy = busy;
        }
    }

    /**
     * A request finished on its link, dispatched at {@code dispatchedNanos} (T3); while limited its slot time
     * (T3 → now) joins the window, less {@code threadWaitNanos}, the time its worker measured it ready to run
     * but waiting for the worker's thread (a fiber's GVL wait; negative: not measured). That wait is the
     * worker's own CPU running other requests, not the dependency the limit protects: counted, it would read
     * a busy core as an inflating dependency and shrink the limit below what the core can serve. Under the
     * dispatcher's lock.
     */
    void finished(long dispatchedNanos, long threadWaitNanos) {
        busy--;
        if (limit != Dispatcher.UNLIMITED) {
            windowCompleted++;
            long slot = clock.nanoTime() - dispatchedNanos;
            long wait = Math.min(slot, Math.max(0, threadWaitNanos));
            windowSlotNanos += slot - wait;
            windowThreadWaitNanos += wait;
        }
    }

    /** A running request left its link without finishing (the link closed). Under the dispatcher's lock. */
    void lost() {
        busy--;
    }

    /**
     * Sets the limit ({@link Dispatcher#UNLIMITED}: none); a window starts when a limit first comes into
     * force. The caller checked {@code limit} ≥ 1. Under the dispatcher's lock.
     */
    void set(int limit) {
        if (limit != Dispatcher.UNLIMITED && this.limit == Dispatcher.UNLIMITED) {
            startWindow();
        }
        LIMIT.setOpaque(this, limit);
    }

    /**
     * The window since the previous call (or since the limit was set), with the {@code depth} and the live
     * links now, and a new one begun. Under the dispatcher's lock.
     */
    LimitWindow takeWindow(int depth) {
        LimitWindow w = new LimitWindow(windowCompleted, windowSlotNanos, windowThreadWaitNanos, windowPeakBusy, depth,
                live, limit);
        startWindow();
        return w;
    }

    private void startWindow() {
        windowCompleted = 0;
        windowSlotNanos = 0;
        windowThreadWaitNanos = 0;
        windowPeakBusy = busy;
    }
}
