/*
 * The bookkeeping every actuator that asks the shepherd for a count shares (fork: worker processes; Ractor
 * and thread: extra slots): the units asked for, the ready count capped by them, and the dead time of each
 * addition. A subclass says what it asks for and what has dialled in.
 */
package dev.pumaplus.spi;

import java.util.function.LongSupplier;

/**
 * Units start at {@code initialUnits} and never go below {@code minUnits}; {@link #add} and {@link #remove}
 * ask for the new total at once (a desired count, never a delta); ready = min(units, {@link #dialledIn()}),
 * so a retired unit still finishing its requests is not counted. Dead time: {@link DeadTime}, each addition
 * watched until the ready count reaches what it asked for.
 *
 * <p>Threading: the counting methods synchronize on this object; they are called from the controller's tick
 * thread, the control app and the dead-time watcher.
 */
public abstract class CountedActuator implements Actuator {

    private final int minUnits;
    private final DeadTime deadTime;
    private final boolean watch;
    private int units;

    /**
     * @param clock {@link System#nanoTime()} in production; injected so the timing is testable
     * @param watch start a watcher per addition (production); false when a test calls {@link #readyUnits}
     */
    protected CountedActuator(int initialUnits, int minUnits, long defaultDeadTimeMs, LongSupplier clock,
            boolean watch) {
        this.units = Math.max(minUnits, initialUnits);
        this.minUnits = minUnits;
        this.deadTime = new DeadTime(defaultDeadTimeMs * 1_000_000, clock);
        this.watch = watch;
    }

    /** Asks the shepherd for {@code total} units in all. Returns at once. */
    protected abstract void request(int total);

    /** Units whose every slot has dialled in now, retiring ones included. */
    protected abstract int dialledIn();

    @Override
    public final long deadTimeNanos() {
        return deadTime.nanos();
    }

    @Override
    public final synchronized int units() {
        return units;
    }

    @Override
    public final int readyUnits() {
        int ready = ready();
        deadTime.observe(ready);
        return ready;
    }

    private synchronized int ready() {
        return Math.min(units, dialledIn());
    }

    @Override
    public final synchronized void add(int count) {
        if (count <= 0) {
            return;
        }
        units += count;
        boolean started = deadTime.added(units);
        request(units);
        if (started && watch) {
            deadTime.watch("puma-plus-" + kind() + "-actuator-watch", this::ready);
        }
    }

    @Override
    public final synchronized void remove(int count) {
        if (count <= 0) {
            return;
        }
        units = Math.max(minUnits, units - count);
        deadTime.removed(units);
        request(units);
    }
}
