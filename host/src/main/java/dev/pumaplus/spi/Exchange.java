package dev.pumaplus.spi;

import io.netty.buffer.ByteBuf;

/** One submitted request, as the protocol that submitted it sees it. Thread-safe. */
public interface Exchange {

    /**
     * Streams more of the request body, in order; only for requests submitted with {@code bodyComplete}
     * false. Ownership of {@code chunk} transfers to the host.
     *
     * @param last true on the final chunk (which may be empty)
     * @return false when the protocol should stop reading from its client until
     *         {@link ResponseSink#resumeRequestBody()} is called
     */
    boolean writeBody(ByteBuf chunk, boolean last);

    /**
     * The client went away. A queued request is removed from the queue and never dispatched; for a
     * running one the rest of the response is discarded. Idempotent.
     */
    void cancel();
}
