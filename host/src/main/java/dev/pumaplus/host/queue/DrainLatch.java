/*
 * The queue's graceful stop (beside the request path): whether the dispatcher still takes requests, and the
 * wait of the launcher's thread until nothing waits and nothing runs. Owned by the Dispatcher; admission
 * asks it whether the queue is closed.
 */
package dev.pumaplus.host.queue;

import java.util.concurrent.Executor;
import java.util.concurrent.locks.Condition;
import java.util.function.BooleanSupplier;

/**
 * Open until {@link #close}, closed for good after: a closed queue refuses every request (answered 503 on the
 * executor it was closed with) and dispatches nothing again. While the drain waits, the dispatcher signals
 * it each time the queue may have emptied ({@link #waiting}, {@link #signal}).
 *
 * <p>Threading: owned by one {@link Dispatcher} and never shared; the condition is of that dispatcher's lock,
 * and every method is called with the lock held, which guards this state, except {@link #refuser} and
 * {@link #closed}, which read it without the lock.
 */
final class DrainLatch {

    /** Signalled when nothing waits and nothing runs, while {@link #await} waits for that. */
    private final Condition drained;
    /** Set by {@link #close}: later requests are refused (answered 503 on this executor). */
    private volatile Executor closedLoop;
    private boolean waiting;

    /** @param drained a condition of the owning dispatcher's lock */
    DrainLatch(Condition drained) {
        this.drained = drained;
    }

    /** The executor refused requests are answered on, or null while the queue takes requests. Any thread. */
    Executor refuser() {
        return closedLoop;
    }

    /** Whether the queue refuses requests (it was drained: the host is shutting down). Any thread. */
    boolean closed() {
        return closedLoop != null;
    }

    /**
     * Waits, releasing the lock meanwhile, until {@code drainedNow} holds or {@code timeoutNanos} passed, or
     * the thread is interrupted (its flag is set again: the caller closes the queue all the same). Returns
     * whether {@code drainedNow} holds at the end.
     */
    boolean await(long timeoutNanos, BooleanSupplier drainedNow) {
        long left = timeoutNanos;
        waiting = true;
        try {
            while (!drainedNow.getAsBoolean() && left > 0) {
                left = drained.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            waiting = false;
        }
        return drainedNow.getAsBoolean();
    }

    /** Whether a drain waits now: only then does the dispatcher check whether to {@link #signal}. */
    boolean waiting() {
        return waiting;
    }

    /** Wakes the waiting drain: the queue has emptied. */
    void signal() {
        drained.signalAll();
    }

    /**
     * Answers {@code ex}, which the closed queue refused or gave up on, 503 on {@code loop} (the executor it
     * was closed with), its body discarded. Any thread, after the dispatcher's lock is released.
     */
    static void refuse(QueuedExchange ex, Executor loop) {
        ex.body.discard();
        loop.execute(() -> ex.response.fail(503, "server shutting down", false));
    }

    /** Closes the queue: requests from now on are refused, answered on {@code loop}. */
    void close(Executor loop) {
        closedLoop = loop;
    }
}
