/*
 * The service an actuator bundle registers: one way of adding and removing units of capacity (a forked
 * worker process, a Ractor, a thread). The controller bundle drives it once a tick; readiness is always
 * worker connections dialling in to the host, never a timer.
 */
package dev.pumaplus.spi;

/**
 * A unit of capacity brings {@link #slotsPerUnit()} worker slots once it has dialled in. Counts are in
 * units. Every method is thread-safe; {@link #add} and {@link #remove} return at once (the units become
 * ready, or go, later).
 */
public interface Actuator {

    /** What a unit is, for logs and /stats: {@code fork}, {@code ractor}, {@code thread}. */
    String kind();

    /** Slots one unit brings (threads per forked worker). */
    int slotsPerUnit();

    /**
     * The expected dead time of {@link #add}: until the unit's slots have dialled in, ns. Measured by the
     * actuator where it can (an average of its recent additions), else its documented default.
     */
    long deadTimeNanos();

    /** Units running or starting: the capacity asked for (expected capacity). */
    int units();

    /** Units whose every slot has dialled in (dialled-in capacity). */
    int readyUnits();

    /** Memory one more unit costs, bytes (e.g. the mean PSS of a worker process); -1 when unknown. */
    long memoryPerUnitBytes();

    /**
     * False when it is unknown whether one more unit adds capacity (a thread under the GVL with no GVL-wait
     * measurement): the policy never adds a unit then. Never "assume yes".
     */
    boolean gainKnown();

    /**
     * True when a unit runs under its worker process's GVL (a thread): one more adds capacity only while
     * that lock is free, which the workers measure as GVL wait (Ruby 3.2+, docs/CONTROL.md). The controller
     * then takes the gain as known when the measurement is there, and judges it from the measurement.
     */
    default boolean sharesGvl() {
        return false;
    }

    /** Starts {@code count} more units (count &gt; 0). */
    void add(int count);

    /** Retires {@code count} units (count &gt; 0); each finishes the requests it is serving first. */
    void remove(int count);
}
