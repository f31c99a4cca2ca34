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
     * One message to the client; ownership of {@code data} transfers. A connection whose bytes accepted
     * but not yet written would exceed {@link WebSocketSettings#outboundLimit()} is closed with 1008
     * instead (the message is dropped). Does nothing once the connection is closing.
     */
    void send(boolean binary, ByteBuf data);

    /** Starts the closing handshake with {@code code} and {@code reason} (at most 123 UTF-8 bytes). */
    void close(int code, String reason);

    /** Stops ({@code false}) or resumes ({@code true}) reading the client: too many events wait. */
    void reading(boolean on);
}
