package dev.pumaplus.spi;

import io.netty.buffer.ByteBuf;
import java.nio.channels.FileChannel;

/**
 * The host's single queue of runnable requests, registered as an OSGi service. A protocol bundle submits
 * each request once it is runnable: its whole body has arrived ({@link RequestBodyBuffer});
 * the host dispatches it to an idle worker link at once or as soon as one becomes idle, oldest first.
 * Every request is its own entry: no client connection ever holds a worker between requests.
 *
 * <p>Fairness across connections: at most one request per client connection waits in the FIFO at a time.
 * Further requests from the same connection (HTTP/1.1 pipelining, h2 streams) are held behind it and enter
 * the FIFO, in order, as soon as their predecessor is dispatched. A connection can therefore use several
 * free slots at once, but it can never make another connection's request wait behind its whole backlog.
 * Queue time for a held request still runs from the moment it was submitted.
 *
 * <p>Admission: a request may be answered by the host at once instead of queued: shed with 503 when its
 * predicted wait exceeds the configured limit, the health check path when the host answers it, 503 once
 * the host is shutting down. The sink then gets a complete response (or {@code fail}) without a worker, and
 * the returned exchange has nothing left to stream, resume or cancel.
 */
public interface RequestQueue {

    /**
     * Enters a runnable request into the queue. Thread-safe; callable from any event loop.
     *
     * @param connection   identifies the client connection (any object with identity, e.g. the Netty
     *                     channel); used only for the fairness rule above
     * @param head         the parsed request
     * @param body         the whole request body when it is held in memory (possibly empty; empty when
     *                     {@code bodyFile} is given); ownership transfers
     * @param bodyFile     null, or the unnamed spool file holding the whole body from position 0 to its size
     *                     (read with positional reads); ownership transfers: the host closes it
     * @param sink         receives the response, on a host thread, in order
     * @return the handle through which the protocol cancels and reports T6
     */
    Exchange submit(Object connection, RequestHead head, ByteBuf body, FileChannel bodyFile, ResponseSink sink);

    /**
     * A new count of one response's unwritten body bytes with the host's water marks, which the protocol's
     * sink consults in {@link ResponseSink#body}; one per response. Thread-safe.
     */
    ResponseBackpressure backpressure();

    /**
     * A new buffer for one request's body, which calls {@code submitter} once the whole body has arrived (see
     * {@link RequestBodyBuffer} for the rule). Thread-safe; the buffer is confined to the reading thread.
     *
     * @param limitBytes the most body bytes a request may have ({@code http_content_length_limit}); 0 or
     *                   less: no limit
     */
    RequestBodyBuffer bodyBuffer(long limitBytes, RequestBodyBuffer.Submitter submitter);
}
