/*
 * The bookkeeping every actuator that asks the shepherd for a count shares (fork: worker processes; Ractor
 * and thread: extra slots): the units asked for, the ready count capped by them, and the dead time of each
 * addition. Its CountedUnits say what it asks for and what has dialled in; WorkerPool#countedActuator makes
 * it for a bundle.
 */
package dev.pumaplus.host.lifecycle;

import dev.pumaplus.spi.Actuator;
import dev.pumaplus.spi.CountedUnits;
import java.util.function.LongSupplier;

/**
 * Units start at {@link CountedUnits#initialUnits()} and never go below {@link CountedUnits#minUnits()};
 * {@link #add} and {@link #remove} ask for the new total at once (a desired count, never a delta); ready =
 * min(units, {@link CountedUnits#dialledIn()}), so a retired unit still finishing its requests is not
 * counted. Dead time: {@link DeadTime}, each addition watched until the ready count reaches what it asked for.
 *
 * <p>Threading: the counting methods synchronize on this object; they are called from the controller's tick
 * thread, the control app and the dead-time watcher.
 */
final class CountedActuator implements Actuator {

    private final CountedUnits counted;
    private final int minUnits;
    private final DeadTime deadTime;
    private final boolean watch;
    private int units;

    /**
     * @param clock {@link System#nanoTime()} in production; injected so the timing is testable
     * @param watch start a watcher per addition (production); false when a test calls {@link #readyUnits}
     */
    CountedActuator(CountedUnits counted, LongSupplier clock, boolean watch) {
        this.counted = counted;
        this.minUnits = counted.minUnits();
        this.units = Math.max(minUnits, counted.initialUnits());
        this.deadTime = new DeadTime(counted.defaultDeadTimeMs() * 1_000_000, clock);
        this.watch = watch;
    }

    @Override
    public String kind() {
        return counted.kind();
    }

    @Override
    public int slotsPerUnit() {
        return counted.slotsPerUnit();
    }

    @Override
    public long memoryPerUnitBytes() {
        return counted.memoryPerUnitBytes();
    }

    @Override
    public boolean gainKnown() {
        return counted.gainKnown();
    }

    @Override
    public boolean sharesGvl() {
        return counted.sharesGvl();
    }

    @Override
    public long deadTimeNanos() {
        return deadTime.nanos();
    }

    @Override
    public synchronized int units() {
        return units;
    }

    @Override
    public int readyUnits() {
        int ready = ready();
        deadTime.observe(ready);
        return ready;
    }

    private synchronized int ready() {
        return Math.min(units, counted.dialledIn());
    }

    @Override
    public synchronized void add(int count) {
        if (count <= 0) {
            return;
        }
        units += count;
        boolean started = deadTime.added(units);
        counted.request(units);
        if (started && watch) {
            deadTime.watch("puma-plus-" + kind() + "-actuator-watch", this::ready);
        }
    }

    @Override
    public synchronized void remove(int count) {
        if (count <= 0) {
            return;
        }
        units = Math.max(minUnits, units - count);
        deadTime.removed(units);
        counted.request(units);
    }
}
