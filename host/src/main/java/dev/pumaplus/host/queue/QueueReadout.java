/*
 * The queue's read-only face for the rooms beside the request path (control, load signals, the worker pool):
 * what it counts and measures, never its requests or links.
 */
package dev.pumaplus.host.queue;

import dev.pumaplus.host.measure.QueueMetrics;

/**
 * What the control room may know of the queue: a consistent snapshot of its counters and the request-timing
 * aggregate it records into. The {@link Dispatcher} implements it; the control room holds only this, so it
 * can neither enqueue, cancel nor touch a link (RoomRulesTest holds that). Thread-safe.
 */
public interface QueueReadout {

    /** A consistent snapshot of the counters (one lock acquisition); any thread. */
    QueueSnapshot snapshot();

    /** The request timing aggregate: queue and slot time are recorded there, everything else beside it. */
    QueueMetrics metrics();
}
