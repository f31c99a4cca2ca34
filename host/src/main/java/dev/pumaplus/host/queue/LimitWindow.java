/*
 * One window of the concurrency limiter of fiber slots, as the dispatcher hands it to the ConcurrencyLimit
 * service (and through it to the controller's limiter); beside the request path.
 */
package dev.pumaplus.host.queue;

/**
 * What the dispatcher saw since the previous window ({@link Dispatcher#takeLimitWindow}): requests finished on
 * a link, the sum of their slot times (T3 → the link idle, less the waits for their worker's thread it
 * measured) in ns, the sum of those waits, and the most running at once; with the depth, live links and limit
 * ({@link Dispatcher#UNLIMITED} for none) at the end of the window.
 */
record LimitWindow(long completed, long slotNanos, long threadWaitNanos, int peakBusy, int depth, int live,
                   int limit) {
}
