/*
 * The concurrency limiter's memory between windows: the limit as a real number (the host runs its integer
 * part), the no-load service time it compares each window with, how long that baseline has gone
 * unconfirmed, and a probe in progress. Carried by the limit driver or the simulator and written to the
 * decision log, so replay starts every line from the state the live limiter saw.
 */
package dev.pumaplus.controller;

/**
 * Immutable limiter state.
 *
 * @param limit               the estimated limit, at least 1; NaN before the first window (the policy starts
 *                            from the limit in force)
 * @param baselineMs          the no-load service time, ms, as the windows since it was last measured moved
 *                            it (GradientLimitPolicy says how); NaN while unknown and while a probe has
 *                            not yet measured it
 * @param unconfirmedWindows  windows in a row whose mean service time was above the stale ratio × the
 *                            baseline
 * @param probeWindowsLeft    judged windows a probe still measures the baseline at its low limit; 0 when no
 *                            probe is under way
 * @param probeFromLimit      the limit the probe cut, restored from when it ends; NaN when no probe is
 *                            under way
 * @param probeFromMs         the mean service time of the window that started the probe, ms; NaN when none
 * @param pendingCompleted    requests finished in the windows since the last decision that moved anything,
 *                            too few to judge by themselves: the next window adds its own to them
 * @param pendingSlotMs       the sum of their slot times, ms
 * @param pendingPeak         the most of them that ran at once
 */
public record LimitState(double limit, double baselineMs, int unconfirmedWindows, int probeWindowsLeft,
                         double probeFromLimit, double probeFromMs, int pendingCompleted, double pendingSlotMs,
                         int pendingPeak) {

    /** A state with nothing pending and no probe under way. */
    public LimitState(double limit, double baselineMs, int unconfirmedWindows) {
        this(limit, baselineMs, unconfirmedWindows, 0, Double.NaN, Double.NaN, 0, 0, 0);
    }

    /** The state before the first window. */
    public static LimitState initial() {
        return new LimitState(Double.NaN, Double.NaN, 0);
    }

    /** Whether a probe is measuring the baseline. */
    public boolean probing() {
        return probeWindowsLeft > 0;
    }
}
