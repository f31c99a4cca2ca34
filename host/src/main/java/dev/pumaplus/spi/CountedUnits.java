/*
 * What an actuator that asks the shepherd for a count supplies (fork: worker processes; Ractor and thread:
 * extra slots): what its unit is, how to ask for a total of them, and how many have dialled in. The host's
 * WorkerPool#countedActuator wraps it in the bookkeeping they all share.
 */
package dev.pumaplus.spi;

/**
 * The unit's side of a counted {@link Actuator}: {@link #kind()}, {@link #slotsPerUnit()},
 * {@link #memoryPerUnitBytes()}, {@link #gainKnown()} and {@link #sharesGvl()} are reported as the actuator's
 * own (see {@link Actuator}); the host counts the units, asks for them with {@link #request} and reads
 * {@link #dialledIn()}.
 *
 * <p>Threading: {@link #request} and {@link #dialledIn} are called with the actuator's lock held, from the
 * controller's tick thread, the control app and the dead-time watcher; they must return at once.
 */
public interface CountedUnits {

    /** What a unit is, for logs and /stats: {@code fork}, {@code ractor}, {@code thread}. */
    String kind();

    /** Slots one unit brings. */
    int slotsPerUnit();

    /** Memory one more unit costs, bytes; -1 when unknown. */
    long memoryPerUnitBytes();

    /** As {@link Actuator#gainKnown()}. */
    boolean gainKnown();

    /** As {@link Actuator#sharesGvl()}. */
    default boolean sharesGvl() {
        return false;
    }

    /** Units the actuator starts with (it never counts fewer than {@link #minUnits()}). */
    int initialUnits();

    /** Units the actuator never goes below. */
    int minUnits();

    /** The dead time assumed before any addition was measured, ms. */
    long defaultDeadTimeMs();

    /** Asks the shepherd for {@code total} units in all (a desired count, never a delta). Returns at once. */
    void request(int total);

    /** Units whose every slot has dialled in now, retiring ones included. */
    int dialledIn();
}
