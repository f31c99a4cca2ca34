/*
 * A test stand-in for the host's RequestQueue (the queue step of accept → parse → queue → ...) written as its
 * submit alone, often a lambda; what else a protocol asks of the queue is the host's own.
 */
package dev.pumaplus.protocol.h1;

import dev.pumaplus.host.queue.ResponseWaterMarks;
import dev.pumaplus.host.queue.SpoolingBodyBuffer;
import dev.pumaplus.spi.RequestBodyBuffer;
import dev.pumaplus.spi.RequestQueue;
import dev.pumaplus.spi.ResponseBackpressure;

/** A RequestQueue whose body buffers and response water marks are the host's. */
@FunctionalInterface
interface SubmitQueue extends RequestQueue {

    @Override
    default RequestBodyBuffer bodyBuffer(long limitBytes, RequestBodyBuffer.Submitter submitter) {
        return new SpoolingBodyBuffer(limitBytes, submitter);
    }

    @Override
    default ResponseBackpressure backpressure() {
        return new ResponseWaterMarks();
    }
}
