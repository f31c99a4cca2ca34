/*
 * A test stand-in for the host's RequestQueue (the queue step of accept → parse → queue → ...) written as its
 * submit alone, often a lambda; what else a protocol asks of the queue is the host's own.
 */
package dev.pumaplus.protocol.h1;

import dev.pumaplus.host.queue.ResponseWaterMarks;
import dev.pumaplus.spi.RequestQueue;
import dev.pumaplus.spi.ResponseBackpressure;

/** A RequestQueue whose response water marks are the host's. */
@FunctionalInterface
interface SubmitQueue extends RequestQueue {

    @Override
    default ResponseBackpressure backpressure() {
        return new ResponseWaterMarks();
    }
}
