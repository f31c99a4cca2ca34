/*
 * The limits one QUIC connection's WebTransport sessions are held to (parse → queue), with their defaults
 * named once; the message and outbound limits are the WebSocket ones (docs/WEBTRANSPORT.md, "Limits").
 */
package dev.pumaplus.protocol.h3;

import dev.pumaplus.spi.WebSocketSettings;
import java.time.Duration;

/**
 * Immutable.
 *
 * @param sessionsPerConnection sessions one QUIC connection may hold or have pending at once; a CONNECT beyond
 *                              it is answered 429
 * @param streamsPerSession     peer streams of one session being read at once; one more is refused
 *                              (STOP_SENDING and RESET_STREAM with H3_EXCESSIVE_LOAD)
 * @param maxMessage            a stream's bytes or a datagram's payload at most, bytes ({@code websocket_max_message});
 *                              a longer stream closes its session with 1009
 * @param outboundLimit         bytes the app sent to a session and not yet written, above which the session is
 *                              closed with 1008 ({@code websocket_outbound_limit})
 * @param bufferedStreams       streams of one connection that may wait for a session not (yet) held
 * @param bufferWait            how long such a stream waits before it is refused with
 *                              WEBTRANSPORT_BUFFERED_STREAM_REJECTED
 * @param closeWait             how long after its CLOSE_WEBTRANSPORT_SESSION a session waits for the client to
 *                              end the CONNECT stream before it stops reading it
 */
record WebTransportLimits(int sessionsPerConnection, int streamsPerSession, int maxMessage, long outboundLimit,
        int bufferedStreams, Duration bufferWait, Duration closeWait) {

    static final int DEFAULT_SESSIONS_PER_CONNECTION = 16;
    static final int DEFAULT_STREAMS_PER_SESSION = 64;
    static final int DEFAULT_BUFFERED_STREAMS = 16;
    static final Duration DEFAULT_BUFFER_WAIT = Duration.ofSeconds(2);
    static final Duration DEFAULT_CLOSE_WAIT = Duration.ofSeconds(5);

    /** The defaults, with the WebSocket settings' message and outbound limits. */
    static WebTransportLimits from(WebSocketSettings settings) {
        return new WebTransportLimits(DEFAULT_SESSIONS_PER_CONNECTION, DEFAULT_STREAMS_PER_SESSION,
                settings.maxMessage(), settings.outboundLimit(), DEFAULT_BUFFERED_STREAMS, DEFAULT_BUFFER_WAIT,
                DEFAULT_CLOSE_WAIT);
    }
}
