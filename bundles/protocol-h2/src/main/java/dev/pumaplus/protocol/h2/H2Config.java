/*
 * The limits every HTTP/2 connection runs with (accept → parse), read once from the host's resolved
 * configuration (docs/CONFIG.md) when the bundle starts.
 */
package dev.pumaplus.protocol.h2;

import dev.pumaplus.spi.ConnectionSettings;
import dev.pumaplus.spi.HostSettings;

/**
 * Immutable, shared by every connection's event loop.
 *
 * @param maxConcurrentStreams  SETTINGS_MAX_CONCURRENT_STREAMS: streams a client may have open at once
 * @param maxHeaderListBytes    SETTINGS_MAX_HEADER_LIST_SIZE (RFC 9113 size: names + values + 32 per
 *                              field); a larger header list is answered 431
 * @param maxRstFramesPerWindow rapid-reset protection (CVE-2023-44487): RST_STREAM frames a client may
 *                              send per {@code rstWindowSecs} before the connection is closed with GOAWAY
 * @param rstWindowSecs         the window of {@code maxRstFramesPerWindow}, seconds
 * @param contentLengthLimit    largest request body in bytes (http_content_length_limit); 0 or less: none
 * @param idleTimeoutSecs       seconds a connection may have no open stream before GOAWAY and close
 *                              (persistent_timeout); 0 or less: none
 * @param writeTimeoutSecs      seconds response data may wait, none of it taken by the client, before GOAWAY
 *                              and close (write_timeout); 0 or less: none
 * @param bodyTimeoutNanos      a request body that brings no byte for this long is answered 408
 *                              ({@code first_data_timeout}, as HTTP/1.1); 0 or less: none
 */
record H2Config(int maxConcurrentStreams, long maxHeaderListBytes, int maxRstFramesPerWindow, int rstWindowSecs,
        long contentLengthLimit, long idleTimeoutSecs, long writeTimeoutSecs, long bodyTimeoutNanos) {

    /** Fixed limits (docs/ARCHITECTURE.md, "HTTP/2"), the body limit and the timeouts from {@code settings}. */
    static H2Config from(HostSettings settings) {
        ConnectionSettings connections = ConnectionSettings.from(settings);
        return new H2Config(
                100,
                112 * 1024, // as HTTP/1.1's header section limit
                200,
                30,
                connections.contentLengthLimit(),
                connections.persistentTimeout().toSeconds(),
                connections.writeTimeout().toSeconds(),
                connections.firstDataTimeout().toNanos());
    }
}
