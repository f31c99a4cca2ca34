/*
 * A held WebSocket connection as the protocol that holds it offers it to the host's hub (respond side):
 * the hub sends messages to it, closes it, and pauses its reading while its events wait in the queue.
 */
package dev.pumaplus.spi;

import io.netty.buffer.ByteBuf;

/**
 * Implemented by a protocol bundle per held connection. Every method is thread-safe and non-blocking; the
 * protocol hops to its connection's event loop. Messages leave in the order of the calls made from one
 * thread.
 */
public interface WebSocketPeer {

    /**
     * {@link #sendStream}'s stream ids from here on are names the app gives streams of the server's it opens;
     * below, QUIC stream ids (RFC 9000 §2.1: less than 2^62). The split of WS_COMMAND's SEND_STREAM
     * (docs/PROTOCOL.md).
     */
    long FIRST_APP_STREAM = 1L << 62;

    /**
     * One message to the client; ownership of {@code data} transfers. A connection whose bytes accepted
     * but not yet written would exceed {@link WebSocketSettings#outboundLimit()} is closed with 1008
     * instead (the message is dropped). Does nothing once the connection is closing.
     */
    void send(boolean binary, ByteBuf data);

    /**
     * One datagram to a WebTransport client (RFC 9297), ownership of {@code data} transferred; it may be lost
     * and is dropped when it does not fit one QUIC packet. Counts against {@link WebSocketSettings#outboundLimit()}
     * as {@link #send} does.
     *
     * @return false when this connection has no datagrams (a WebSocket): {@code data} is released, nothing sent
     */
    default boolean sendDatagram(ByteBuf data) {
        data.release();
        return false;
    }

    /**
     * Bytes on a WebTransport stream, ownership of {@code data} transferred: on the client's bidirectional
     * stream {@code streamId} (its answer), or, for an id from {@link #FIRST_APP_STREAM} on, on the stream of
     * the server's the app named so (the first bytes for a new name open a unidirectional stream). With
     * {@code finish} the stream's sending side ends after them (FIN). Bytes for a stream that is not open (or
     * already finished) are dropped.
     *
     * @return false when this connection has no streams (a WebSocket): {@code data} is released, nothing sent
     */
    default boolean sendStream(long streamId, ByteBuf data, boolean finish) {
        data.release();
        return false;
    }

    /** Starts the closing handshake with {@code code} and {@code reason} (at most 123 UTF-8 bytes). */
    void close(int code, String reason);

    /** Stops ({@code false}) or resumes ({@code true}) reading the client: too many events wait. */
    void reading(boolean on);
}
