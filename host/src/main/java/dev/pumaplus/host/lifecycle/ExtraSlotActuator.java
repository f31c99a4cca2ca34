/*
 * The one implementation behind the Ractor and thread actuator bundles: a unit of capacity is one slot
 * beyond `threads` inside the running worker processes (a Ractor or a thread running one link), asked of the
 * shepherd through the host's WorkerPool (EXTRA_SLOTS). The host makes it ({@link WorkerPool#ractorSlots()},
 * {@link WorkerPool#threadSlots()}); each bundle only registers it.
 */
package dev.pumaplus.host.lifecycle;

import dev.pumaplus.spi.CountedActuator;
import dev.pumaplus.spi.WorkerPool;
import java.util.function.LongSupplier;

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
 * <p>Threading: as {@link CountedActuator}.
 */
final class ExtraSlotActuator extends CountedActuator {

    /** The dead time assumed before any addition was measured, ms: a Ractor or thread plus its link's dial-in. */
    static final long DEFAULT_DEAD_TIME_MS = 50;

    private final String kind;
    private final boolean gainKnown;
    private final WorkerPool pool;

    /**
     * The Ractor actuator: extra slots are Ractors (the configuration has {@code ractors}), gain known.
     * Measures its dead time with {@link System#nanoTime()} and a watcher per addition.
     */
    static ExtraSlotActuator ractors(WorkerPool pool) {
        return new ExtraSlotActuator("ractor", true, pool, System::nanoTime, true);
    }

    /**
     * The thread actuator: extra slots are threads under their process's GVL, gain unknown by itself (known
     * from the workers' GVL wait, see {@link #sharesGvl()}).
     */
    static ExtraSlotActuator threads(WorkerPool pool) {
        return new ExtraSlotActuator("thread", false, pool, System::nanoTime, true);
    }

    /** As {@link CountedActuator}; a generation starts with no extra slots. */
    ExtraSlotActuator(String kind, boolean gainKnown, WorkerPool pool, LongSupplier clock, boolean watch) {
        super(0, 0, DEFAULT_DEAD_TIME_MS, clock, watch);
        this.kind = kind;
        this.gainKnown = gainKnown;
        this.pool = pool;
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
    public long memoryPerUnitBytes() {
        return -1;
    }

    @Override
    public boolean gainKnown() {
        return gainKnown;
    }

    /** A thread slot shares its process's GVL; a Ractor slot has its own lock. */
    @Override
    public boolean sharesGvl() {
        return kind.equals("thread");
    }

    @Override
    protected void request(int total) {
        pool.desiredExtraSlots(total);
    }

    @Override
    protected int dialledIn() {
        return pool.readyExtraSlots();
    }
}
