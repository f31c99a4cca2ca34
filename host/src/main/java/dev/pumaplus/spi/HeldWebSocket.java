/*
 * The host's end of a WebSocket connection it holds (docs/WEBSOCKETS.md), as a protocol that holds
 * WebSockets (HTTP/1.1, and h2's extended CONNECT) sees it: the last handler of the connection's pipeline,
 * after the RFC 6455 codec the hub installed ({@link WebSocketHub#install}); it hands each whole message to
 * the hub's session (parse → queue) and writes what the hub sends (respond).
 */
package dev.pumaplus.spi;

import io.netty.channel.ChannelHandler;

/**
 * A channel handler (so a protocol finds it with {@code pipeline.get(HeldWebSocket.class)}, e.g. to close
 * it with {@link #GOING_AWAY} when the server stops). A protocol gets one from {@link WebSocketHub#install}
 * once it has answered the handshake; the hub holds it from then on. The hub's session hears {@link WebSocketSession#closed} once, with the code of the close that ended the connection
 * (the client's, the app's, {@link #MESSAGE_TOO_BIG}, {@link #POLICY_VIOLATION} for a slow consumer,
 * {@link #GOING_AWAY} for a client silent for two ping intervals), or {@link #ABNORMAL} when it broke
 * without one. Threading: the channel's event loop, except the {@link WebSocketPeer} methods, which hop to
 * it.
 */
public interface HeldWebSocket extends WebSocketPeer, ChannelHandler {

    /** RFC 6455 §7.4.1: the endpoint is going away; the code for a client gone silent. */
    int GOING_AWAY = 1001;
    /** RFC 6455 §7.4.1: a message broke a rule; the code for a client that takes too slowly. */
    int POLICY_VIOLATION = 1008;
    /** RFC 6455 §7.4.1: a message over the message limit. */
    int MESSAGE_TOO_BIG = 1009;
    /** RFC 6455 §7.4.1: no close frame was received (never sent on the wire). */
    int ABNORMAL = 1006;
}
