/*
 * A test double of the host's Exchange for h1 tests that answer requests themselves (the submit step of
 * accept → parse → queue, with no real queue behind it): every method does nothing; tests override what
 * they observe.
 */
package dev.pumaplus.protocol.h1;

import dev.pumaplus.spi.Exchange;

/** Ignores resume, cancel and T6. Subclass to observe any of them. */
class StubExchange implements Exchange {

    @Override
    public void resumeResponse() {
    }

    @Override
    public void cancel() {
    }

    @Override
    public void responseSent(long flushedNanos) {
    }
}
