/*
 * The queue's counters at one moment, for the control app, the load signals, the worker pool and tests;
 * taken under the dispatcher's lock, read anywhere afterwards.
 */
package dev.pumaplus.host.queue;

import java.util.List;

/**
 * @param depth        requests waiting in the FIFO or held behind their connection's waiting request
 * @param busy         links running a request
 * @param live         links said HELLO and not closed
 * @param dropped      requests cancelled by their client before dispatch
 * @param completed    requests finished on a link
 * @param lostLinks    links that closed while still taking requests (no GOAWAY, no drain first): a worker
 *                     died or its link broke
 * @param redispatched requests a closing link had been given but never delivered to its worker, put back
 *                     at the queue's head to go down another link
 * @param limit        requests that may run at once: the concurrency limit of fiber slots, or
 *                     {@link Dispatcher#UNLIMITED}
 * @param processes    per worker process, by worker index then pid
 */
public record QueueSnapshot(int depth, int busy, int live, long dropped, long completed, long lostLinks,
                            long redispatched, int limit, List<ProcessStatus> processes) {

    /** Whether a concurrency limit is in force (the workers run fiber slots). */
    public boolean limited() {
        return limit != Dispatcher.UNLIMITED;
    }

    /** Requests that may run at once: c for W_pred, the live links or the limit when lower. */
    public int capacity() {
        return Math.min(live, limit);
    }
}
