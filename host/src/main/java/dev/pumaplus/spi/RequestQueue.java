package dev.pumaplus.spi;

import io.netty.buffer.ByteBuf;

/**
 * The host's single queue of runnable requests, registered as an OSGi service. A protocol bundle submits
 * each request once it is runnable (its body buffered, or its first 1 MiB buffered for larger bodies);
 * the host dispatches it to an idle worker link at once or as soon as one becomes idle, oldest first.
 * Every request is its own entry: no client connection ever holds a worker between requests.
 */
public interface RequestQueue {

    /**
     * Enters a runnable request into the queue. Thread-safe; callable from any event loop.
     *
     * @param head         the parsed request
     * @param body         the request body bytes buffered so far (possibly empty); ownership transfers
     * @param bodyComplete true if {@code body} is the whole body; false if the rest follows through
     *                     {@link Exchange#writeBody}
     * @param sink         receives the response, on a host thread, in order
     * @return the handle through which the protocol streams the rest of the body or cancels
     */
    Exchange submit(RequestHead head, ByteBuf body, boolean bodyComplete, ResponseSink sink);
}
