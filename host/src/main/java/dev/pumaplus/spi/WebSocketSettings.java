/*
 * The limits of the WebSocket connections the host holds (docs/WEBSOCKETS.md, "Limits"), typed and with
 * their defaults named once: the protocols apply them to each held connection, the host's hub the
 * connection count.
 */
package dev.pumaplus.spi;

import java.time.Duration;

/**
 * WebSocket settings from the host's resolved configuration (docs/CONFIG.md, "The CONFIG frame"); a key the
 * configuration lacks takes the default named here, which is what the gem sends when nothing is configured.
 * Immutable.
 *
 * @param maxMessage     largest message in bytes, after its fragments are joined ({@code websocket_max_message});
 *                       a bigger one closes the connection with 1009
 * @param outboundLimit  bytes accepted for a connection and not yet written to its socket above which it is
 *                       closed with 1008 ({@code websocket_outbound_limit})
 * @param pingInterval   a ping after this long without a frame from the client; closed after two
 *                       ({@code websocket_ping_interval}); zero: no pings
 * @param maxConnections held connections at most; further upgrades are answered 503 ({@code websocket_max_connections})
 */
public record WebSocketSettings(int maxMessage, long outboundLimit, Duration pingInterval, int maxConnections) {

    public static final int DEFAULT_MAX_MESSAGE = 1 << 20;
    public static final long DEFAULT_OUTBOUND_LIMIT = 1 << 20;
    public static final Duration DEFAULT_PING_INTERVAL = Duration.ofSeconds(30);
    public static final int DEFAULT_MAX_CONNECTIONS = 10_000;

    /** The settings {@code settings} holds, each missing one at its default. */
    public static WebSocketSettings from(HostSettings settings) {
        return new WebSocketSettings(
                (int) Math.min(Integer.MAX_VALUE, settings.number("websocket_max_message", DEFAULT_MAX_MESSAGE)),
                settings.number("websocket_outbound_limit", DEFAULT_OUTBOUND_LIMIT),
                Duration.ofSeconds(settings.number("websocket_ping_interval", DEFAULT_PING_INTERVAL.toSeconds())),
                (int) Math.min(Integer.MAX_VALUE,
                        settings.number("websocket_max_connections", DEFAULT_MAX_CONNECTIONS)));
    }
}
