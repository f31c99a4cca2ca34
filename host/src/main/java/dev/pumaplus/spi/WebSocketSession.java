/*
 * One held WebSocket connection as the host's hub sees it (parse → queue): the protocol reports each
 * message and the connection's end here, and the hub turns them into queued events.
 */
package dev.pumaplus.spi;

import io.netty.buffer.ByteBuf;

/** The hub's handle on a held connection, returned by {@link WebSocketHub#hold}. Thread-safe. */
public interface WebSocketSession {

    /** The connection's id, as the app sees it in {@code puma_plus.websocket.id}. */
    long id();

    /**
     * A whole message (fragments joined) arrived; ownership of {@code data} transfers.
     *
     * @param arrivedNanos {@link System#nanoTime()} when its last frame was read: the event's T1 and T2
     */
    void message(boolean binary, ByteBuf data, long arrivedNanos);

    /** The connection closed (either side, or it broke: 1006), after every message it reported. Once. */
    void closed(int code);
}
