/*
 * The units behind the Ractor and thread actuator bundles: a unit of capacity is one slot beyond `threads`
 * inside the running worker processes (a Ractor or a thread running one link), asked of the shepherd through
 * the host's WorkerPool (EXTRA_SLOTS). The host makes their actuators ({@link WorkerPool#ractorSlots()},
 * {@link WorkerPool#threadSlots()}); each bundle's factory only asks for its one.
 */
package dev.pumaplus.host.lifecycle;

import dev.pumaplus.spi.Actuator;
import dev.pumaplus.spi.CountedUnits;
import dev.pumaplus.spi.WorkerPool;

/**
 * Units = extra slots asked for (starts at 0: a shepherd generation starts without any); ready =
 * {@code min(units, WorkerPool.readyExtraSlots())}; one slot per unit. The slots are spread over the worker
 * processes by the shepherd, so they share those processes' cores and memory with the base slots.
 *
 * <p>Dead time: {@link CountedActuator}, starting at {@value #DEFAULT_DEAD_TIME_MS} ms. Memory per unit:
 * unknown (-1); a Ractor's or thread's share of its process's PSS cannot be told apart from the process's
 * own growth while it serves.
 *
 * <p>Gain: a Ractor has its own lock, so one more adds capacity (up to the cores: the CPU guard still
 * applies). A thread shares its process's GVL ({@link #sharesGvl()}): whether it helps depends on how busy
 * that lock is, which the workers measure on Ruby 3.2+ (GVL wait per request) and the controller judges;
 * without the measurement (Ruby 3.1 has no {@code rb_internal_thread_add_event_hook}) it is unknown, and
 * the policy never adds it.
 *
 * @param kind      {@code ractor} or {@code thread}
 * @param gainKnown whether one more slot is known to add capacity by itself
 * @param pool      where the slots are asked for and counted
 */
record ExtraSlots(String kind, boolean gainKnown, WorkerPool pool) implements CountedUnits {

    /** The dead time assumed before any addition was measured, ms: a Ractor or thread plus its link's dial-in. */
    static final long DEFAULT_DEAD_TIME_MS = 50;

    /**
     * The Ractor actuator: extra slots are Ractors (the configuration has {@code ractors}), gain known.
     * Measures its dead time with {@link System#nanoTime()} and a watcher per addition.
     */
    static Actuator ractors(WorkerPool pool) {
        return new CountedActuator(new ExtraSlots("ractor", true, pool), System::nanoTime, true);
    }

    /**
     * The thread actuator: extra slots are threads under their process's GVL, gain unknown by itself (known
     * from the workers' GVL wait, see {@link #sharesGvl()}).
     */
    static Actuator threads(WorkerPool pool) {
        return new CountedActuator(new ExtraSlots("thread", false, pool), System::nanoTime, true);
    }

    @Override
    public int slotsPerUnit() {
        return 1;
    }

    @Override
    public long memoryPerUnitBytes() {
        return -1;
    }

    /** A thread slot shares its process's GVL; a Ractor slot has its own lock. */
    @Override
    public boolean sharesGvl() {
        return kind.equals("thread");
    }

    /** A generation starts with no extra slots. */
    @Override
    public int initialUnits() {
        return 0;
    }

    @Override
    public int minUnits() {
        return 0;
    }

    @Override
    public long defaultDeadTimeMs() {
        return DEFAULT_DEAD_TIME_MS;
    }

    @Override
    public void request(int total) {
        pool.desiredExtraSlots(total);
    }

    @Override
    public int dialledIn() {
        return pool.readyExtraSlots();
    }
}
