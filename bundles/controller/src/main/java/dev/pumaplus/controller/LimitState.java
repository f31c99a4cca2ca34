/*
 * The concurrency limiter's memory between windows: the limit as a real number (the host runs its integer
 * part), the no-load service time it compares each window with, and how long that baseline has gone
 * unconfirmed. Carried by the limit driver or the simulator and written to the decision log, so replay
 * starts every line from the state the live limiter saw.
 */
package dev.pumaplus.controller;

/**
 * Immutable limiter state.
 *
 * @param limit               the estimated limit, at least 1; NaN before the first window (the policy starts
 *                            from the limit in force)
 * @param baselineMs          the no-load service time: the lowest window mean since the last probe, ms; NaN
 *                            while unknown
 * @param unconfirmedWindows  windows in a row whose mean service time was above the stale ratio × the
 *                            baseline; at the policy's probe count the baseline is measured again
 * @param measuring           the limit was just cut to measure the baseline (a probe): the next windows'
 *                            means are taken as the baseline instead of cutting it again
 * @param pendingCompleted    requests finished in the windows since the last decision that moved anything,
 *                            too few to judge by themselves: the next window adds its own to them
 * @param pendingSlotMs       the sum of their slot times, ms
 * @param pendingPeak         the most of them that ran at once
 */
public record LimitState(double limit, double baselineMs, int unconfirmedWindows, boolean measuring,
                         int pendingCompleted, double pendingSlotMs, int pendingPeak) {

    /** A state with nothing pending. */
    public LimitState(double limit, double baselineMs, int unconfirmedWindows, boolean measuring) {
        this(limit, baselineMs, unconfirmedWindows, measuring, 0, 0, 0);
    }

    /** The state before the first window. */
    public static LimitState initial() {
        return new LimitState(Double.NaN, Double.NaN, 0, false);
    }
}
