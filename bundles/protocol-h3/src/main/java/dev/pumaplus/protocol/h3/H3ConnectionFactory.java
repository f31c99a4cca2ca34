/*
 * Makes the HTTP/3 connection of each QUIC connection a listener accepts (accept → parse): Flupke's server
 * connection, which also lends each request's QUIC stream to the request handler (H3RequestHandler) while
 * the handler runs, so that the handler can stop reading a request body that stalled.
 */
package dev.pumaplus.protocol.h3;

import java.util.Map;
import java.util.concurrent.ExecutorService;
import tech.kwik.core.QuicConnection;
import tech.kwik.core.QuicStream;
import tech.kwik.core.server.ApplicationProtocolConnection;
import tech.kwik.core.server.ApplicationProtocolConnectionFactory;
import tech.kwik.flupke.server.Http3ApplicationProtocolFactory;
import tech.kwik.flupke.server.HttpRequestHandler;
import tech.kwik.flupke.server.impl.Http3ServerConnectionImpl;

/**
 * Why: Flupke hands its handler the request body as an InputStream of DATA frames and nothing of the QUIC
 * stream beneath, and a blocked read of that stream ends only when the stream's input is aborted
 * ({@link QuicStream#abortReading}; closing Flupke's InputStream from another thread races its own
 * buffers). Flupke reads a request's headers and calls the handler on one thread, the stream's, so the
 * stream is lent through that thread for the length of the call: {@link #requestStream}.
 *
 * <p>Everything else is Flupke's: its settings (stream counts and buffer sizes) come from its own factory,
 * kept here to be asked, and its connection serves each request as it always does.
 *
 * <p>Threading: {@link #createConnection} on Kwik's threads; {@link #requestStream} on a request's thread.
 */
final class H3ConnectionFactory implements ApplicationProtocolConnectionFactory {

    /** The QUIC stream of the request whose handler runs on this thread; set only during that call. */
    private static final ThreadLocal<QuicStream> REQUEST_STREAM = new ThreadLocal<>();

    private final HttpRequestHandler handler;
    private final ExecutorService requests;
    /** Flupke's own factory: the settings it gives Kwik, and the header size its connections take. */
    private final Http3ApplicationProtocolFactory flupke;

    /**
     * @param requests the executor Flupke runs each stream on (the handler blocks on it until the response
     *                 is written)
     */
    H3ConnectionFactory(HttpRequestHandler handler, ExecutorService requests) {
        this.handler = handler;
        this.requests = requests;
        this.flupke = new Http3ApplicationProtocolFactory(handler, Map.of(), requests);
    }

    /**
     * The QUIC stream of the request being handled on the calling thread: valid inside
     * {@link HttpRequestHandler#handleRequest} only, never null there.
     */
    static QuicStream requestStream() {
        return REQUEST_STREAM.get();
    }

    @Override
    public ApplicationProtocolConnection createConnection(String protocol, QuicConnection quicConnection) {
        // No cap on a request body's DATA here: Flupke's default (10 MiB) would refuse with 413 what HTTP/1.1
        // and h2 take; the body's limit is http_content_length_limit, applied by the RequestBodyBuffer.
        return new Connection(quicConnection, handler, flupke.getMaxHeaderSize(), Long.MAX_VALUE, requests);
    }

    @Override
    public int maxConcurrentPeerInitiatedUnidirectionalStreams() {
        return flupke.maxConcurrentPeerInitiatedUnidirectionalStreams();
    }

    @Override
    public long maxTotalPeerInitiatedUnidirectionalStreams() {
        return flupke.maxTotalPeerInitiatedUnidirectionalStreams();
    }

    @Override
    public int maxConcurrentPeerInitiatedBidirectionalStreams() {
        return flupke.maxConcurrentPeerInitiatedBidirectionalStreams();
    }

    @Override
    public long maxTotalPeerInitiatedBidirectionalStreams() {
        return flupke.maxTotalPeerInitiatedBidirectionalStreams();
    }

    @Override
    public int minUnidirectionalStreamReceiverBufferSize() {
        return flupke.minUnidirectionalStreamReceiverBufferSize();
    }

    @Override
    public long maxUnidirectionalStreamReceiverBufferSize() {
        return flupke.maxUnidirectionalStreamReceiverBufferSize();
    }

    @Override
    public int minBidirectionalStreamReceiverBufferSize() {
        return flupke.minBidirectionalStreamReceiverBufferSize();
    }

    @Override
    public long maxBidirectionalStreamReceiverBufferSize() {
        return flupke.maxBidirectionalStreamReceiverBufferSize();
    }

    @Override
    public boolean enableDatagramExtension() {
        return flupke.enableDatagramExtension();
    }

    /** Flupke's connection, lending each request stream to the thread that reads it and calls the handler. */
    private static final class Connection extends Http3ServerConnectionImpl {

        Connection(QuicConnection quicConnection, HttpRequestHandler handler, long maxHeaderSize, long maxDataSize,
                ExecutorService requests) {
            super(quicConnection, handler, maxHeaderSize, maxDataSize, requests, Map.of());
        }

        @Override
        protected void handleStandardRequestResponseStream(QuicStream quicStream) {
            REQUEST_STREAM.set(quicStream);
            try {
                super.handleStandardRequestResponseStream(quicStream);
            } finally {
                REQUEST_STREAM.remove();
            }
        }
    }
}
