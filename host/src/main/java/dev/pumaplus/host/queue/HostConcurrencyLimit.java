/*
 * The ConcurrencyLimit service: the dispatcher's concurrency limit of fiber slots and its window, for the
 * controller's limit driver (beside the request path, never on it).
 */
package dev.pumaplus.host.queue;

import dev.pumaplus.spi.ConcurrencyLimit;

/** A view of the {@link Dispatcher}'s limit; the dispatcher keeps the state. Thread-safe. */
public final class HostConcurrencyLimit implements ConcurrencyLimit {

    private final Dispatcher dispatcher;

    public HostConcurrencyLimit(Dispatcher dispatcher) {
        this.dispatcher = dispatcher;
    }

    @Override
    public Window window() {
        LimitWindow w = dispatcher.takeLimitWindow();
        return w.limit() == Dispatcher.UNLIMITED ? null
                : new Window(w.completed(), w.slotNanos(), w.threadWaitNanos(), w.peakBusy(), w.depth(), w.live(),
                        w.limit());
    }

    @Override
    public boolean set(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("concurrency limit must be at least 1: " + limit);
        }
        return dispatcher.adjustLimit(limit);
    }
}
