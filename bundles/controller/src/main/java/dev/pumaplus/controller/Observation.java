/*
 * What the autoscaling policy sees at one tick: the queue's signals over the last second and the actuator's
 * unit counts. Built by the driver (live) or the simulator, read back from the decision log by replay; the
 * policy never reads a clock or a socket itself.
 */
package dev.pumaplus.controller;

/**
 * One tick's input to {@link Policy#decide}. Plain values only, so a decision log line holds it whole.
 * The unit counts are the primary actuator's (fork); the {@code bridge*} ones the optional fast actuator's
 * that covers the primary's dead time (docs/CONTROL.md, "Bridging the dead time").
 * Unknown measurements are {@link Double#NaN} (written as JSON null), never 0: an absent number must not
 * read as "no load" or "no contention".
 *
 * @param tick            the tick number (one per {@code tickMs}); cooldowns are counted in ticks
 * @param arrivalsPerSec  λ: requests submitted in the last second, per second
 * @param queueP95Ms      queue time (T3 − T2b) p95 over the last second, ms; 0 when nothing was dispatched
 * @param queueP99Ms      queue time p99 over the last second, ms
 * @param slotMs          S: mean slot time (dispatch → link idle) over the last 10 s, ms; NaN when unknown
 * @param depth           requests waiting now (L)
 * @param busySlots       slots running a request now
 * @param liveSlots       slots dialled in now (c)
 * @param predictedWaitMs W_pred = (L + 1) · S / c now, ms (0 with an idle slot); +Infinity with no slot
 * @param units           units the actuator is running or starting (expected capacity, in units)
 * @param readyUnits      units whose every slot has dialled in (dialled-in capacity)
 * @param slotsPerUnit    slots one unit brings (threads per forked worker)
 * @param deadTimeMs      the actuator's expected dead time: add() until the unit's slots dial in, ms
 * @param memPerUnitMb    memory one more unit costs (PSS of a worker), MiB; NaN when unknown
 * @param memAvailableMb  memory the machine can still give (MemAvailable), MiB; NaN when unknown
 * @param cpuBusy         share of the machine's CPU time busy over the last tick, 0..1; NaN when unknown
 * @param gainKnown       false when it is unknown whether one more unit adds capacity at all (a thread
 *                        under the GVL without a GVL-wait measurement); the policy never adds then
 * @param bridgeUnits        bridge slots asked for (the fast actuator: Ractors or threads), 0 with no bridge
 * @param bridgeReadyUnits   bridge slots dialled in
 * @param bridgeSlotsPerUnit slots one bridge unit brings (1); 0 means there is no bridge actuator
 * @param bridgeDeadTimeMs   the bridge's expected dead time, ms; NaN with no bridge
 * @param bridgeGainKnown    as {@code gainKnown}, for a bridge slot (false for threads on Ruby 3.1)
 */
public record Observation(
        long tick,
        double arrivalsPerSec,
        double queueP95Ms,
        double queueP99Ms,
        double slotMs,
        int depth,
        int busySlots,
        int liveSlots,
        double predictedWaitMs,
        int units,
        int readyUnits,
        int slotsPerUnit,
        double deadTimeMs,
        double memPerUnitMb,
        double memAvailableMb,
        double cpuBusy,
        boolean gainKnown,
        int bridgeUnits,
        int bridgeReadyUnits,
        int bridgeSlotsPerUnit,
        double bridgeDeadTimeMs,
        boolean bridgeGainKnown) {

    /** An observation with no bridge actuator (the bridge fields as a log line without them reads). */
    public Observation(long tick, double arrivalsPerSec, double queueP95Ms, double queueP99Ms, double slotMs,
                       int depth, int busySlots, int liveSlots, double predictedWaitMs, int units, int readyUnits,
                       int slotsPerUnit, double deadTimeMs, double memPerUnitMb, double memAvailableMb,
                       double cpuBusy, boolean gainKnown) {
        this(tick, arrivalsPerSec, queueP95Ms, queueP99Ms, slotMs, depth, busySlots, liveSlots, predictedWaitMs,
                units, readyUnits, slotsPerUnit, deadTimeMs, memPerUnitMb, memAvailableMb, cpuBusy, gainKnown,
                0, 0, 0, Double.NaN, false);
    }

    /** This observation with a bridge actuator's counts (its slots per unit at least 1). */
    public Observation withBridge(int units, int readyUnits, int slotsPerUnit, double deadTimeMs,
                                  boolean gainKnown) {
        return new Observation(tick, arrivalsPerSec, queueP95Ms, queueP99Ms, slotMs, depth, busySlots, liveSlots,
                predictedWaitMs, this.units, this.readyUnits, this.slotsPerUnit, this.deadTimeMs, memPerUnitMb,
                memAvailableMb, cpuBusy, this.gainKnown, units, readyUnits, Math.max(1, slotsPerUnit), deadTimeMs,
                gainKnown);
    }

    /** True when a bridge actuator runs beside the primary one. */
    public boolean hasBridge() {
        return bridgeSlotsPerUnit > 0;
    }

    /** Units started and not yet dialled in: capacity still on its way. */
    public int bootingUnits() {
        return Math.max(0, units - readyUnits);
    }
}
