/*
 * How long an actuator's additions take to become capacity: from add() to the moment the ready count
 * reached what it asked for. One measurement for every actuator (fork, Ractor, thread), watched closely
 * enough that it is not read at the controller's tick resolution.
 */
package dev.pumaplus.host.lifecycle;

import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * A moving average (weight 1/2) of measured additions; until the first is measured, a documented default,
 * which the first measurement replaces (it is a placeholder, not an observation). An addition is
 * timed from {@link #added} until {@link #observe} sees the ready count reach its target; additions made
 * while one is being timed extend its target and are measured with it. {@link #watch} reads the ready count
 * every {@value #WATCH_INTERVAL_MS} ms on a virtual thread until the addition completes (at most
 * {@value #WATCH_LIMIT_MS} ms): read once a tick, a fork that dials in within 100 ms would be measured as a
 * second.
 *
 * <p>Threading: every method synchronizes on this object; any thread.
 */
final class DeadTime {

    static final long WATCH_INTERVAL_MS = 2;
    static final long WATCH_LIMIT_MS = 30_000;

    private final LongSupplier clock;
    private long averageNanos;
    /** Whether any addition has been measured: until then {@link #averageNanos} is the default. */
    private boolean measured;
    /** When the addition being timed was asked; 0 when none is. */
    private long addedAtNanos;
    private int target;

    /** @param clock {@link System#nanoTime()} in production; injected so the timing is testable */
    DeadTime(long defaultNanos, LongSupplier clock) {
        this.averageNanos = defaultNanos;
        this.clock = clock;
    }

    /** The expected dead time, ns. */
    synchronized long nanos() {
        return averageNanos;
    }

    /**
     * An addition that completes when the ready count reaches {@code readyTarget}. Returns true when it
     * starts a new timing (none was in progress): the caller then {@link #watch}es it.
     */
    synchronized boolean added(int readyTarget) {
        target = readyTarget;
        if (addedAtNanos != 0) {
            return false;
        }
        addedAtNanos = clock.getAsLong();
        return true;
    }

    /** A removal down to {@code units}: an addition being timed completes at that count at most. */
    synchronized void removed(int units) {
        target = Math.min(target, units);
    }

    /** Records the addition being timed as complete once {@code ready} reached its target. */
    synchronized void observe(int ready) {
        if (addedAtNanos != 0 && ready >= target) {
            long took = clock.getAsLong() - addedAtNanos;
            averageNanos = measured ? (averageNanos + took) / 2 : took;
            measured = true;
            addedAtNanos = 0;
        }
    }

    /** Whether an addition is being timed. */
    synchronized boolean timing() {
        return addedAtNanos != 0;
    }

    /**
     * Starts a virtual thread named {@code name} that feeds {@code ready} to {@link #observe} until the
     * addition being timed completes.
     */
    void watch(String name, IntSupplier ready) {
        Thread.ofVirtual().name(name).start(() -> {
            long deadline = System.nanoTime() + WATCH_LIMIT_MS * 1_000_000;
            while (System.nanoTime() - deadline < 0) {
                observe(ready.getAsInt());
                if (!timing()) {
                    return;
                }
                LockSupport.parkNanos(WATCH_INTERVAL_MS * 1_000_000);
            }
        });
    }
}
