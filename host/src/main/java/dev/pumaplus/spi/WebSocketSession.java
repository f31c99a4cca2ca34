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

    /**
     * A WebTransport session's client stream, read to its end, is one message; ownership of {@code data}
     * transfers. The app sees it as {@code puma_plus.websocket.type = stream} with the stream's id in
     * {@code puma_plus.websocket.stream_id}; a bidirectional one it may answer on
     * ({@link WebSocketPeer#sendStream}). A hub that knows no kinds sees a binary message.
     *
     * @param streamId     the QUIC stream id (RFC 9000 §2.1), 0 to 2^62-1
     * @param arrivedNanos {@link System#nanoTime()} when its end was read: the event's T1 and T2
     */
    default void streamMessage(long streamId, ByteBuf data, long arrivedNanos) {
        message(true, data, arrivedNanos);
    }

    /**
     * A WebTransport datagram's payload is one message ({@code puma_plus.websocket.type = datagram});
     * ownership of {@code data} transfers. A hub that knows no kinds sees a binary message.
     */
    default void datagram(ByteBuf data, long arrivedNanos) {
        message(true, data, arrivedNanos);
    }

    /** The connection closed (either side, or it broke: 1006), after every message it reported. Once. */
    void closed(int code);
}
