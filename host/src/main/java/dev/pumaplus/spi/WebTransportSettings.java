/*
 * The limits of the WebTransport sessions the host holds (docs/WEBTRANSPORT.md, "Limits"), typed and with
 * their defaults named once: protocol-h3 applies them to each QUIC connection and session, the host's hub
 * the session count. They are WebTransport's own; the WebSocket settings do not apply to sessions.
 */
package dev.pumaplus.spi;

/**
 * WebTransport settings from the host's resolved configuration (docs/CONFIG.md, "The CONFIG frame"); a key
 * the configuration lacks takes the default named here, which is what the gem sends when nothing is
 * configured. Immutable.
 *
 * @param sessionsPerConnection sessions one QUIC connection may hold or have pending at once; a CONNECT beyond
 *                              it is answered 429 ({@code webtransport_sessions_per_connection})
 * @param maxSessions           sessions held at most, counted apart from WebSocket connections; a CONNECT while
 *                              this many are held is answered 503 by the host ({@code webtransport_max_sessions})
 * @param streamsPerSession     client streams of one session being read at once, and streams waiting for or
 *                              open to the app's writes ({@code webtransport_streams_per_session})
 * @param maxMessage            a client stream's bytes or a datagram's payload at most, bytes; a longer stream
 *                              closes its session with 1009, a longer datagram is dropped
 *                              ({@code webtransport_max_message})
 * @param outboundLimit         bytes the app sent to a session and not yet written, above which the session is
 *                              closed with 1008 ({@code webtransport_outbound_limit})
 */
public record WebTransportSettings(int sessionsPerConnection, int maxSessions, int streamsPerSession, int maxMessage,
                                   long outboundLimit) {

    public static final int DEFAULT_SESSIONS_PER_CONNECTION = 16;
    public static final int DEFAULT_MAX_SESSIONS = 10_000;
    public static final int DEFAULT_STREAMS_PER_SESSION = 64;
    public static final int DEFAULT_MAX_MESSAGE = 1 << 20;
    public static final long DEFAULT_OUTBOUND_LIMIT = 1 << 20;

    /** The settings {@code settings} holds, each missing one at its default. */
    public static WebTransportSettings from(HostSettings settings) {
        return new WebTransportSettings(
                count(settings, "webtransport_sessions_per_connection", DEFAULT_SESSIONS_PER_CONNECTION),
                count(settings, "webtransport_max_sessions", DEFAULT_MAX_SESSIONS),
                count(settings, "webtransport_streams_per_session", DEFAULT_STREAMS_PER_SESSION),
                count(settings, "webtransport_max_message", DEFAULT_MAX_MESSAGE),
                settings.number("webtransport_outbound_limit", DEFAULT_OUTBOUND_LIMIT));
    }

    /** An int setting; one past {@link Integer#MAX_VALUE} is taken as that (no limit is reached sooner). */
    private static int count(HostSettings settings, String key, int fallback) {
        return (int) Math.min(Integer.MAX_VALUE, settings.number(key, fallback));
    }
}
