/*
 * The hot-queue watch (beside the dispatch step): when a request has waited longer than the controller's
 * threshold with every slot busy, it calls the controller at once instead of at its next tick. Owned by the
 * Dispatcher, which decides under its lock with what this watch holds.
 */
package dev.pumaplus.host.queue;

import dev.pumaplus.host.measure.NanoClock;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The controller's reaction inside a tick ({@link dev.pumaplus.spi.LoadSignals#watchHotQueue}): while a watch is set
 * and requests wait in the FIFO, one check is scheduled on the watcher's timer for the moment the oldest of
 * them will have waited the threshold; it calls the watcher when that request has waited at least that long
 * with every live link busy, and schedules itself again (a threshold later after a call, else for the
 * oldest one's moment) until it finds the FIFO empty. So nothing is scheduled while no request waits, and
 * the watcher is called at most once per threshold.
 *
 * <p>Threading: {@link #watch} from any thread; {@link #arm} and {@link #check} under the dispatcher's lock
 * (so an arm and a check never race over whether one is pending); the check itself runs on the watcher's
 * timer, through the dispatcher, which calls the returned watcher after releasing its lock.
 */
final class HotQueueWatch {

    /** {@link #check}'s argument when no request waits. */
    static final long NONE_WAITING = Long.MIN_VALUE;

    /** Who is told of a hot queue, when and on which timer. */
    private record Watch(long thresholdNanos, ScheduledExecutorService timer, Runnable onHot) {
    }

    private final NanoClock clock;
    /** The dispatcher's check, scheduled on the watcher's timer. */
    private final Runnable check;
    /** The watch, or null for none. */
    private volatile Watch watch;
    /** A check is scheduled or running; under the dispatcher's lock. */
    private boolean pending;

    HotQueueWatch(NanoClock clock, Runnable check) {
        this.clock = clock;
        this.check = check;
    }

    /** Sets the watch, replacing any earlier one; {@code onHot} null stops it. Any thread. */
    void watch(long thresholdNanos, ScheduledExecutorService timer, Runnable onHot) {
        if (onHot != null && thresholdNanos <= 0) {
            throw new IllegalArgumentException("hot-queue threshold must be > 0 ns: " + thresholdNanos);
        }
        watch = onHot == null ? null : new Watch(thresholdNanos, timer, onHot);
    }

    /**
     * A request entered the FIFO, whose oldest request became runnable at {@code oldestRunnableNanos} (T2b):
     * schedules a check for the moment it will have waited the threshold, unless one is pending.
     */
    void arm(long oldestRunnableNanos) {
        Watch w = watch;
        if (pending || w == null) {
            return;
        }
        long waited = clock.nanoTime() - oldestRunnableNanos;
        pending = schedule(w, Math.max(0, w.thresholdNanos - waited));
    }

    /**
     * The scheduled check: the oldest waiting request's T2b ({@link #NONE_WAITING} for none) and whether every
     * slot that may run is busy. Schedules the next check while requests wait, and returns the watcher to call
     * (the queue is hot), or null.
     */
    Runnable check(long oldestRunnableNanos, boolean saturated) {
        Watch w = watch;
        if (w == null || oldestRunnableNanos == NONE_WAITING) {
            pending = false;
            return null;
        }
        long waited = clock.nanoTime() - oldestRunnableNanos;
        boolean hot = waited >= w.thresholdNanos && saturated;
        long delay = waited >= w.thresholdNanos ? w.thresholdNanos : w.thresholdNanos - waited;
        pending = schedule(w, delay);
        return hot ? w.onHot : null;
    }

    private boolean schedule(Watch w, long delayNanos) {
        try {
            w.timer.schedule(check, delayNanos, TimeUnit.NANOSECONDS);
            return true;
        } catch (RejectedExecutionException e) {
            return false; // the watcher's timer is shut down: it is going away
        }
    }
}
