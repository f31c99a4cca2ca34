/*
 * Makes the HTTP/3 connection of each QUIC connection a listener accepts (accept → parse): Flupke's server
 * connection, which also lends each request's QUIC stream to the request handler (H3RequestHandler) while
 * the handler runs, so that the handler can stop reading a request body that stalled, and, when the host
 * holds WebSockets, routes WebTransport's streams and datagrams to the connection's WebTransportConnection.
 */
package dev.pumaplus.protocol.h3;

import dev.pumaplus.spi.WebSocketHub;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import tech.kwik.core.QuicConnection;
import tech.kwik.core.QuicStream;
import tech.kwik.core.server.ApplicationProtocolConnection;
import tech.kwik.core.server.ApplicationProtocolConnectionFactory;
import tech.kwik.core.server.ServerConnection;
import tech.kwik.flupke.HttpStream;
import tech.kwik.flupke.server.Http3ApplicationProtocolFactory;
import tech.kwik.flupke.server.Http3ServerExtensionFactory;
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
 * <p>WebTransport (docs/WEBTRANSPORT.md), only when given the host's WebSocket hub: the connection announces
 * it ({@link WebTransportExtension}'s settings), Kwik announces QUIC datagrams (max_datagram_frame_size), and
 * each connection registers, through Flupke's and Kwik's public API, the WebTransport stream types (0x54
 * unidirectional, 0x41 bidirectional) and a datagram handler with its {@link WebTransportConnection}.
 *
 * <p>Threading: {@link #createConnection} on Kwik's threads; {@link #requestStream} on a request's thread.
 */
final class H3ConnectionFactory implements ApplicationProtocolConnectionFactory {

    /** The QUIC stream of the request whose handler runs on this thread; set only during that call. */
    private static final ThreadLocal<QuicStream> REQUEST_STREAM = new ThreadLocal<>();
    /** Receive window of a client's unidirectional stream when WebTransport is offered, bytes. */
    private static final int WEBTRANSPORT_STREAM_WINDOW = 64 * 1024;

    private final HttpRequestHandler handler;
    private final ExecutorService requests;
    /** Flupke's own factory: the settings it gives Kwik, and the header size its connections take. */
    private final Http3ApplicationProtocolFactory flupke;
    /** Null: no WebTransport. */
    private final WebSocketHub hub;
    private final WebTransportLimits limits;
    private final InetSocketAddress local;
    private final HeldSessions held;
    private final Map<String, Http3ServerExtensionFactory> extensions;

    /**
     * @param requests the executor Flupke runs each stream on (the handler blocks on it until the response
     *                 is written)
     * @param hub      the host's WebSocket hub, which holds WebTransport sessions too; null: none offered
     * @param local    the listener's address, for the sessions' env
     * @param held     where the listener's WebTransport sessions are kept while held
     */
    H3ConnectionFactory(HttpRequestHandler handler, ExecutorService requests, WebSocketHub hub,
            WebTransportLimits limits, InetSocketAddress local, HeldSessions held) {
        this.held = held;
        this.handler = handler;
        this.requests = requests;
        this.flupke = new Http3ApplicationProtocolFactory(handler, Map.of(), requests);
        this.hub = hub;
        this.limits = limits;
        this.local = local;
        this.extensions = hub == null ? Map.of() : Map.of(WebTransportExtension.PROTOCOL,
                new WebTransportExtension(connection -> ((Connection) connection).webTransport));
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
        Connection connection = new Connection(quicConnection, handler, flupke.getMaxHeaderSize(), Long.MAX_VALUE,
                requests, extensions);
        if (hub != null) {
            InetSocketAddress remote = ((ServerConnection) quicConnection).getInitialRemoteAddress();
            WebTransportConnection wt = new WebTransportConnection(new QuicTransport(quicConnection, connection),
                    hub, limits, local, remote, held);
            connection.webTransport = wt;
            connection.registerUnidirectionalStreamType(WebTransportCodes.STREAM_TYPE_WEBTRANSPORT,
                    wt::unidirectionalStream);
            connection.registerBidirectionalStreamHandler(WebTransportCodes.FRAME_TYPE_WEBTRANSPORT_STREAM,
                    wt::bidirectionalStream);
            quicConnection.setDatagramHandler(wt::datagram);
        }
        return connection;
    }

    /**
     * Flupke's count covers HTTP/3's own three (control and QPACK); with WebTransport a client also needs room
     * for each session's unidirectional streams (Chromium refuses to create one otherwise).
     */
    @Override
    public int maxConcurrentPeerInitiatedUnidirectionalStreams() {
        int http3 = flupke.maxConcurrentPeerInitiatedUnidirectionalStreams();
        long webTransport = (long) limits.sessionsPerConnection() * limits.streamsPerSession(); // both configurable: may pass an int
        return hub == null ? http3 : (int) Math.min(Integer.MAX_VALUE, http3 + webTransport);
    }

    /** With WebTransport, unlimited over the connection's life: each stream's end gives its credit back. */
    @Override
    public long maxTotalPeerInitiatedUnidirectionalStreams() {
        return hub == null ? flupke.maxTotalPeerInitiatedUnidirectionalStreams() : Long.MAX_VALUE;
    }

    @Override
    public int maxConcurrentPeerInitiatedBidirectionalStreams() {
        return flupke.maxConcurrentPeerInitiatedBidirectionalStreams();
    }

    @Override
    public long maxTotalPeerInitiatedBidirectionalStreams() {
        return flupke.maxTotalPeerInitiatedBidirectionalStreams();
    }

    /** Flupke's 1 KiB suits HTTP/3's control streams; a WebTransport stream carrying a message gets 64 KiB. */
    @Override
    public int minUnidirectionalStreamReceiverBufferSize() {
        return hub == null ? flupke.minUnidirectionalStreamReceiverBufferSize() : WEBTRANSPORT_STREAM_WINDOW;
    }

    @Override
    public long maxUnidirectionalStreamReceiverBufferSize() {
        return hub == null ? flupke.maxUnidirectionalStreamReceiverBufferSize() : WEBTRANSPORT_STREAM_WINDOW;
    }

    @Override
    public int minBidirectionalStreamReceiverBufferSize() {
        return flupke.minBidirectionalStreamReceiverBufferSize();
    }

    @Override
    public long maxBidirectionalStreamReceiverBufferSize() {
        return flupke.maxBidirectionalStreamReceiverBufferSize();
    }

    /** With WebTransport, QUIC datagrams (RFC 9221): Kwik then sends max_datagram_frame_size. */
    @Override
    public boolean enableDatagramExtension() {
        return hub != null || flupke.enableDatagramExtension();
    }

    /** Flupke's connection, lending each request stream to the thread that reads it and calls the handler. */
    private static final class Connection extends Http3ServerConnectionImpl {
        /** Set once, before Kwik hands the connection its first stream; null without WebTransport. */
        volatile WebTransportConnection webTransport;

        Connection(QuicConnection quicConnection, HttpRequestHandler handler, long maxHeaderSize, long maxDataSize,
                ExecutorService requests, Map<String, Http3ServerExtensionFactory> extensions) {
            super(quicConnection, handler, maxHeaderSize, maxDataSize, requests, extensions);
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

    /** The QUIC and HTTP/3 connection beneath a WebTransportConnection: Kwik's and Flupke's public API. */
    private record QuicTransport(QuicConnection quic, Connection http3) implements WebTransportConnection.Transport {
        @Override
        public HttpStream openUnidirectional() throws IOException {
            return http3.createUnidirectionalStream(WebTransportCodes.STREAM_TYPE_WEBTRANSPORT);
        }

        @Override
        public boolean sendDatagram(byte[] frame) {
            if (!quic.canSendDatagram() || frame.length > quic.maxDatagramDataSize()) {
                return false;
            }
            try {
                quic.sendDatagram(frame);
                return true;
            } catch (IllegalStateException | IllegalArgumentException e) {
                return false; // the connection closed meanwhile
            }
        }

        @Override
        public void close(long errorCode, String reason) {
            quic.close(errorCode, reason);
        }
    }
}
