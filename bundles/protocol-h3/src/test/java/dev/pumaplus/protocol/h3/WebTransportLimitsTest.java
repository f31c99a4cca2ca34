/*
 * Claims about the limits a QUIC connection's WebTransport sessions are held to (docs/WEBTRANSPORT.md,
 * "Limits"): each configurable one comes from its own webtransport_* setting, never from a WebSocket one.
 */
package dev.pumaplus.protocol.h3;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.pumaplus.spi.HostSettings;
import dev.pumaplus.spi.WebTransportSettings;
import java.lang.reflect.Proxy;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class WebTransportLimitsTest {

    /** The host's settings holding {@code values}; only numbers are asked for (any other call fails the cast). */
    private static HostSettings settings(Map<String, Long> values) {
        return (HostSettings) Proxy.newProxyInstance(HostSettings.class.getClassLoader(),
                new Class<?>[] {HostSettings.class},
                (proxy, method, args) -> values.getOrDefault((String) args[0], (Long) args[1]));
    }

    private static WebTransportLimits limits(Map<String, Long> values) {
        return WebTransportLimits.from(WebTransportSettings.from(settings(values)));
    }

    @Test
    void eachConfigurableLimitIsReadFromItsOwnWebTransportSetting() {
        WebTransportLimits limits = limits(Map.of("webtransport_sessions_per_connection", 2L,
                "webtransport_streams_per_session", 3L, "webtransport_max_message", 1000L,
                "webtransport_outbound_limit", 5000L, "webtransport_max_sessions", 7L));
        assertEquals(2, limits.sessionsPerConnection());
        assertEquals(3, limits.streamsPerSession());
        assertEquals(1000, limits.maxMessage());
        assertEquals(5000, limits.outboundLimit());
        assertEquals(WebTransportLimits.DEFAULT_BUFFERED_STREAMS, limits.bufferedStreams(), "the bundle's own");
    }

    @Test
    void theWebSocketSettingsDoNotLimitSessionsWhichKeepTheirDefaults() {
        WebTransportLimits limits = limits(Map.of("websocket_max_message", 10L, "websocket_outbound_limit", 20L,
                "websocket_max_connections", 1L));
        assertEquals(new WebTransportLimits(16, 64, 1 << 20, 1 << 20, WebTransportLimits.DEFAULT_BUFFERED_STREAMS,
                WebTransportLimits.DEFAULT_BUFFER_WAIT, WebTransportLimits.DEFAULT_CLOSE_WAIT), limits);
    }

    @Test
    void aMessageLimitPastAnIntIsTheLargestInt() {
        assertEquals(Integer.MAX_VALUE, limits(Map.of("webtransport_max_message", 1L << 40)).maxMessage());
    }
}
