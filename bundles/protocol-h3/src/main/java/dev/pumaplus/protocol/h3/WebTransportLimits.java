/*
 * The limits one QUIC connection's WebTransport sessions are held to (parse → queue): the configured ones
 * (the webtransport_* settings, docs/WEBTRANSPORT.md, "Limits") and this bundle's own, with their defaults
 * named once.
 */
package dev.pumaplus.protocol.h3;

import dev.pumaplus.spi.WebTransportSettings;
import java.time.Duration;

/**
 * Immutable.
 *
 * @param sessionsPerConnection sessions one QUIC connection may hold or have pending at once; a CONNECT beyond
 *                              it is answered 429 ({@code webtransport_sessions_per_connection})
 * @param streamsPerSession     peer streams of one session being read at once
 *                              ({@code webtransport_streams_per_session}); one more is refused (STOP_SENDING and
 *                              RESET_STREAM with H3_EXCESSIVE_LOAD)
 * @param maxMessage            a stream's bytes or a datagram's payload at most, bytes
 *                              ({@code webtransport_max_message}); a longer stream closes its session with 1009
 * @param outboundLimit         bytes the app sent to a session and not yet written, above which the session is
 *                              closed with 1008 ({@code webtransport_outbound_limit})
 * @param bufferedStreams       streams of one connection that may wait for a session not (yet) held
 * @param bufferWait            how long such a stream waits before it is refused with
 *                              WEBTRANSPORT_BUFFERED_STREAM_REJECTED
 * @param closeWait             how long after its CLOSE_WEBTRANSPORT_SESSION a session waits for the client to
 *                              end the CONNECT stream before it stops reading it
 */
record WebTransportLimits(int sessionsPerConnection, int streamsPerSession, int maxMessage, long outboundLimit,
        int bufferedStreams, Duration bufferWait, Duration closeWait) {

    static final int DEFAULT_BUFFERED_STREAMS = 16;
    static final Duration DEFAULT_BUFFER_WAIT = Duration.ofSeconds(2);
    static final Duration DEFAULT_CLOSE_WAIT = Duration.ofSeconds(5);

    /**
     * The configured limits of {@code settings} (its session count in all is the host's hub's), with this bundle's
     * own at their defaults.
     */
    static WebTransportLimits from(WebTransportSettings settings) {
        return new WebTransportLimits(settings.sessionsPerConnection(), settings.streamsPerSession(),
                settings.maxMessage(), settings.outboundLimit(), DEFAULT_BUFFERED_STREAMS, DEFAULT_BUFFER_WAIT,
                DEFAULT_CLOSE_WAIT);
    }
}
