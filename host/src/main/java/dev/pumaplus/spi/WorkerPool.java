/*
 * The host's handle on the shepherd's worker processes, for the actuators: ask for a number of worker
 * processes (the WORKER_COUNT frame, docs/PROTOCOL.md) or of slots beyond threads inside them (EXTRA_SLOTS:
 * Ractors or threads), and see which have dialled in; and the host's actuators of extra slots, which the
 * Ractor and thread bundles register.
 */
package dev.pumaplus.spi;

import java.util.List;

/** Registered by the host once the shepherd has sent its configuration. Thread-safe. */
public interface WorkerPool {

    /** Worker threads per process: the slots one process brings once ready. */
    int threadsPerWorker();

    /** Worker processes the configuration started with. */
    int initialWorkers();

    /** Asks the shepherd to run {@code count} worker processes (at least 1). Returns at once. */
    void desiredWorkers(int count);

    /** Pids of worker processes whose every thread has dialled in, in no particular order. */
    List<Long> readyWorkerPids();

    /**
     * Asks the shepherd to run {@code count} slots beyond {@code threads} over all its worker processes (at
     * least 0; the shepherd spreads them). A desired total, never a delta. Returns at once; a new shepherd
     * generation (hot restart) is sent the last count after its configuration.
     */
    void desiredExtraSlots(int count);

    /** Extra slots dialled in now: the sum over worker processes of max(0, live links − threads). */
    int readyExtraSlots();

    /**
     * A new actuator whose unit is one Ractor beyond {@code threads} (kind {@code ractor}, gain known), asking
     * {@link #desiredExtraSlots} of this pool; its dead time starts at 50 ms and is measured from readiness.
     * The Ractor actuator bundle makes one when it starts and registers it.
     */
    Actuator ractorSlots();

    /**
     * A new actuator whose unit is one thread beyond {@code threads} under its process's GVL (kind
     * {@code thread}, {@link Actuator#sharesGvl()}, gain unknown by itself), asking {@link #desiredExtraSlots}
     * of this pool; dead time as {@link #ractorSlots()}. The thread actuator bundle makes one and registers it.
     */
    Actuator threadSlots();

    /**
     * A new actuator over {@code units}: it counts them from {@link CountedUnits#initialUnits()}, never below
     * {@link CountedUnits#minUnits()}, asks for each new total at once, reports ready = min(units,
     * {@link CountedUnits#dialledIn()}) and measures the dead time of each addition until the ready count
     * reached it (a moving average, weight 1/2, from {@link CountedUnits#defaultDeadTimeMs()}). The fork
     * actuator bundle makes one when it starts and registers it.
     */
    Actuator countedActuator(CountedUnits units);
}
