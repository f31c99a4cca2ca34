/*
 * What the concurrency limiter sees at the end of one window (docs/CONTROL.md, "The concurrency limit"):
 * how many requests finished on the slots in it, their mean slot time, how many ran at once at most, and
 * the slots and the limit in force. Built by the limit driver (live) or the limit simulator, read back from
 * the decision log by replay; the limiter reads no clock itself.
 */
package dev.pumaplus.controller;

/**
 * One window's input to {@link LimitPolicy#decide}. Plain values only, so a decision log line holds it
 * whole. Unknown measurements are {@link Double#NaN} (JSON null), never 0.
 *
 * @param window        the window's number since the driver started (0, 1, ...)
 * @param windowMs      the window's length as measured by the driver's clock, ms
 * @param completed     requests that finished on a slot in the window
 * @param meanServiceMs their mean slot time (dispatch → the slot idle again, less what their worker measured
 *                      them waiting for its thread), ms; NaN when none finished
 * @param peakInFlight  the most requests running on slots at once in the window
 * @param depth         requests waiting in the host's queue at the window's end
 * @param slots         slots dialled in at the window's end: the limit's upper bound
 * @param limit         the limit in force during the window
 * @param meanThreadWaitMs the mean of what their workers measured them waiting for the worker's thread (a fiber's
 *                      GVL wait, left out of meanServiceMs), ms; NaN when none finished, 0 where no worker measured it
 */
public record LimitObservation(long window, double windowMs, int completed, double meanServiceMs, int peakInFlight,
                               int depth, int slots, int limit, double meanThreadWaitMs) {
}
