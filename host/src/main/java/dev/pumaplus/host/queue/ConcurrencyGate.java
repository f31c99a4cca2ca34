/*
 * The dispatcher's concurrency limit of fiber slots (queue → dispatch): how many requests run now, whether
 * one more may start, and the limiter's window of what ran. Consulted by the Dispatcher at each dispatch
 * decision; read by admission (capacity for W_pred) and, through the Dispatcher, by the ConcurrencyLimit
 * service.
 */
package dev.pumaplus.host.queue;

import dev.pumaplus.host.measure.NanoClock;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Requests running on links (busy) and the limit on them (docs/CONTROL.md "The concurrency limit"): while the
 * generation's workers run fiber slots, at most {@code limit} requests run at once, whatever the live links;
 * without a limit ({@link Dispatcher#UNLIMITED}, thread and Ractor slots) {@link #admits} is one comparison
 * and nothing else changes. The window is kept beside the limit, only while one is in force: requests
 * finished, the sum of their slot times and the most running at once ({@link #takeWindow}).
 *
 * <p>Threading: owned by one {@link Dispatcher} and never shared; every method but {@link #limitNow} is called
 * with that dispatcher's lock held, which guards this state. {@link #limitNow} reads the limit without it.
 * Nothing here allocates but {@link #takeWindow}: the request path stays allocation-free.
 */
final class ConcurrencyGate {

    private static final VarHandle LIMIT;

    static {
        try {
            LIMIT = MethodHandles.lookup().findVarHandle(ConcurrencyGate.class, "limit", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final NanoClock clock;
    /** Requests that may run at once: {@link Dispatcher#UNLIMITED}, or the limit of fiber slots. */
    private int limit = Dispatcher.UNLIMITED;
    /** Requests assigned to a link and not yet finished or lost with it. */
    private int busy;
    // The window (kept only while limited): see takeWindow.
    private long windowCompleted;
    private long windowSlotNanos;
    private int windowPeakBusy;

    /** @param clock the end of a slot is read from it, for the window's slot time, only while limited */
    ConcurrencyGate(NanoClock clock) {
        this.clock = clock;
    }

    /** The limit now, read without the dispatcher's lock (a moment's view for admission). */
    int limitNow() {
        return (int) LIMIT.getOpaque(this);
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

    /** Whether every request that may run does: {@code live} links or the limit, the lower. Under the lock. */
    boolean saturated(int live) {
        return busy >= Math.min(live, limit);
    }

    /** A request was assigned to a link. Under the dispatcher's lock. */
    void started() {
        busy++;
        if (limit != Dispatcher.UNLIMITED && busy > windowPeakBusy) {
            windowPeakBusy = busy;
        }
    }

    /**
     * A request finished on its link, dispatched at {@code dispatchedNanos} (T3); while limited its slot time
     * (T3 → now) joins the window. Under the dispatcher's lock.
     */
    void finished(long dispatchedNanos) {
        busy--;
        if (limit != Dispatcher.UNLIMITED) {
            windowCompleted++;
            windowSlotNanos += clock.nanoTime() - dispatchedNanos;
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
     * The window since the previous call (or since the limit was set), with the {@code depth} and {@code live}
     * links now, and a new one begun. Under the dispatcher's lock.
     */
    LimitWindow takeWindow(int depth, int live) {
        LimitWindow w = new LimitWindow(windowCompleted, windowSlotNanos, windowPeakBusy, depth, live, limit);
        startWindow();
        return w;
    }

    private void startWindow() {
        windowCompleted = 0;
        windowSlotNanos = 0;
        windowPeakBusy = busy;
    }
}
