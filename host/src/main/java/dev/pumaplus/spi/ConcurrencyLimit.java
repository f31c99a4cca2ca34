/*
 * The concurrency limit of fiber slots, registered by the host (docs/CONTROL.md, "The concurrency limit"):
 * the host's dispatcher holds requests in its queue while the limit's number of them run, and keeps the
 * window of service times the controller's limiter decides from. Read and set once a window, beside the
 * request path, never on it.
 */
package dev.pumaplus.spi;

/**
 * The limit and its windows. The limit is in force only while the current generation's workers run fiber
 * slots; then it starts at their slot count, and the controller sets it once a window. Thread-safe.
 */
public interface ConcurrencyLimit {

    /**
     * The window since the previous call (or since the limit came into force), and a new one begun; null
     * while no limit is in force (thread or Ractor slots). The caller times the window with its own clock.
     */
    Window window();

    /**
     * Sets the limit, at least 1 (a value above the live slots lets every slot run). Returns false, and
     * changes nothing, while no limit is in force.
     */
    boolean set(int limit);

    /**
     * @param completed    requests that finished on a slot in the window
     * @param slotNanos    the sum of their slot times (dispatch → the slot idle again), less the time each
     *                     waited for its worker's thread where the worker measured it (a fiber's GVL wait), ns
     * @param threadWaitNanos the sum of those waits, ns (0 where none was measured)
     * @param peakInFlight the most requests running on slots at once in the window
     * @param depth        requests waiting in the queue now
     * @param liveSlots    slots dialled in now
     * @param limit        the limit in force now
     */
    record Window(long completed, long slotNanos, long threadWaitNanos, int peakInFlight, int depth, int liveSlots,
                  int limit) {
    }
}
