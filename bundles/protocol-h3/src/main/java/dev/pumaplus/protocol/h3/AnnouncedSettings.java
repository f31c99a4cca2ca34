/*
 * The HTTP/3 SETTINGS a connection that offers WebTransport sends (accept step), beside Flupke's own
 * (QPACK's and SETTINGS_ENABLE_CONNECT_PROTOCOL): one place that says which drafts are announced.
 */
package dev.pumaplus.protocol.h3;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * HTTP datagrams (RFC 9297) and WebTransport as draft-ietf-webtrans-http3-02 announces it
 * (SETTINGS_ENABLE_WEBTRANSPORT): the draft Chromium 150 speaks (its CONNECT carries
 * {@code sec-webtransport-http3-draft02: 1}, and with only draft-07's or draft-13's WT_MAX_SESSIONS it fails
 * the handshake before sending one). The later drafts' settings are not announced: they promise flow-control
 * capsules and limits this bundle does not implement. Stateless.
 */
final class AnnouncedSettings {

    private AnnouncedSettings() {
    }

    /** Identifier → value, in the order they go on the wire. */
    static Map<Long, Long> of() {
        Map<Long, Long> settings = new LinkedHashMap<>();
        settings.put(WebTransportCodes.SETTINGS_H3_DATAGRAM, 1L);
        settings.put(WebTransportCodes.SETTINGS_ENABLE_WEBTRANSPORT_DRAFT02, 1L);
        return settings;
    }
}
