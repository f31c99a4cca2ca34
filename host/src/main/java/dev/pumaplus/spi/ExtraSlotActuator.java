/*
 * The one implementation behind the Ractor and thread actuator bundles: a unit of capacity is one slot
 * beyond `threads` inside the running worker processes (a Ractor or a thread running one link), asked of the
 * shepherd through the host's WorkerPool (EXTRA_SLOTS). Each bundle only registers it with its kind.
 */
package dev.pumaplus.spi;

import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Units = extra slots asked for (starts at 0: a shepherd generation starts without any); ready =
 * {@code min(units, WorkerPool.readyExtraSlots())}; one slot per unit. The slots are spread over the worker
 * processes by the shepherd, so they share those processes' cores and memory with the base slots.
 *
 * <p>Dead time: a moving average (weight 1/2) of the time from an {@link #add} to the moment the ready count
 * reached what it asked for, starting at {@value #DEFAULT_DEAD_TIME_MS} ms. A slot dials in within
 * milliseconds, far inside the controller's one-second tick, so an addition is watched by a virtual thread
 * that reads the ready count every {@value #WATCH_INTERVAL_MS} ms until it is complete (or
 * {@value #WATCH_LIMIT_MS} ms have passed): measured at the next tick, every addition would read as about
 * a tick. Memory per unit: unknown (-1); a Ractor's or thread's share of its process's PSS cannot be told
 * apart from the process's own growth while it serves.
 *
 * <p>Gain: a Ractor has its own lock, so one more adds capacity (up to the cores: the CPU guard still
 * applies). A thread shares its process's GVL; without a GVL-wait measurement (Ruby 3.1 has no
 * {@code rb_internal_thread_add_event_hook}) whether it helps is unknown, and the policy never adds it.
 *
 * <p>Threading: all methods synchronize on this object; they are called from the controller's tick thread,
 * the control app and the watcher.
 */
public final class ExtraSlotActuator implements Actuator {

    /** The dead time assumed before any addition was measured, ms: a Ractor or thread plus its link's dial-in. */
    public static final long DEFAULT_DEAD_TIME_MS = 50;
    static final long WATCH_INTERVAL_MS = 2;
    static final long WATCH_LIMIT_MS = 30_000;

    private final String kind;
    private final boolean gainKnown;
    private final WorkerPool pool;
    private final LongSupplier clock;
    private final boolean watch;
    private int units;
    private long deadTimeNanos = DEFAULT_DEAD_TIME_MS * 1_000_000;
    /** An addition being timed: when it was asked and the ready count that completes it; 0 when none. */
    private long addedAtNanos;
    private int readyTarget;

    /**
     * The Ractor actuator: extra slots are Ractors (the configuration has {@code ractors}), gain known.
     * Measures its dead time with {@link System#nanoTime()} and a watcher per addition.
     */
    public static ExtraSlotActuator ractors(WorkerPool pool) {
        return new ExtraSlotActuator("ractor", true, pool, System::nanoTime, true);
    }

    /** The thread actuator: extra slots are threads under their process's GVL, gain unknown. */
    public static ExtraSlotActuator threads(WorkerPool pool) {
        return new ExtraSlotActuator("thread", false, pool, System::nanoTime, true);
    }

    /**
     * @param clock {@link System#nanoTime()} in production; injected so the timing is testable
     * @param watch start a watcher per addition (production); false when a test calls {@link #readyUnits}
     */
    ExtraSlotActuator(String kind, boolean gainKnown, WorkerPool pool, LongSupplier clock, boolean watch) {
        this.kind = kind;
        this.gainKnown = gainKnown;
        this.pool = pool;
        this.clock = clock;
        this.watch = watch;
    }

    @Override
    public String kind() {
        return kind;
    }

    @Override
    public int slotsPerUnit() {
        return 1;
    }

    @Override
    public synchronized long deadTimeNanos() {
        return deadTimeNanos;
    }

    @Override
    public synchronized int units() {
        return units;
    }

    @Override
    public synchronized int readyUnits() {
        int ready = Math.min(units, pool.readyExtraSlots());
        if (addedAtNanos != 0 && ready >= readyTarget) {
            long took = clock.getAsLong() - addedAtNanos;
            deadTimeNanos = (deadTimeNanos + took) / 2;
            addedAtNanos = 0;
        }
        return ready;
    }

    @Override
    public long memoryPerUnitBytes() {
        return -1;
    }

    @Override
    public boolean gainKnown() {
        return gainKnown;
    }

    @Override
    public synchronized void add(int count) {
        if (count <= 0) {
            return;
        }
        units += count;
        boolean timing = addedAtNanos == 0;
        if (timing) {
            addedAtNanos = clock.getAsLong();
        }
        readyTarget = units;
        pool.desiredExtraSlots(units);
        if (timing && watch) {
            Thread.ofVirtual().name("puma-plus-" + kind + "-actuator-watch").start(this::watchAddition);
        }
    }

    @Override
    public synchronized void remove(int count) {
        if (count <= 0) {
            return;
        }
        units = Math.max(0, units - count);
        readyTarget = Math.min(readyTarget, units);
        pool.desiredExtraSlots(units);
    }

    /** Reads the ready count until the addition being timed is complete, so its dead time is measured. */
    private void watchAddition() {
        long deadline = System.nanoTime() + WATCH_LIMIT_MS * 1_000_000;
        while (System.nanoTime() - deadline < 0) {
            synchronized (this) {
                readyUnits();
                if (addedAtNanos == 0) {
                    return;
                }
            }
            LockSupport.parkNanos(WATCH_INTERVAL_MS * 1_000_000);
        }
    }
}
