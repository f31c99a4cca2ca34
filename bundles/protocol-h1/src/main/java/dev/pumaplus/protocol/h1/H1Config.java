/*
 * The per-connection settings of the HTTP/1.1 listener, read once from the host's resolved configuration
 * (docs/CONFIG.md) when the bundle starts; used from accept to respond.
 */
package dev.pumaplus.protocol.h1;

import dev.pumaplus.spi.ConnectionSettings;
import dev.pumaplus.spi.HostSettings;

/**
 * Immutable, shared by every connection's event loop.
 *
 * @param contentLengthLimit   largest request body in bytes; 0 or less means unlimited
 * @param firstDataTimeoutSecs seconds from accept (TLS handshake included) to a new connection's first request
 *                             byte; 0 or less: none
 * @param persistentTimeoutSecs seconds an idle keep-alive connection is kept open; 0 or less: none
 * @param writeTimeoutSecs     seconds response bytes may wait in the channel without any of them reaching
 *                             the socket before the connection is closed (puma's WRITE_TIMEOUT); 0 or
 *                             less: none
 * @param headerTimeoutSecs    seconds from a request's first byte to the end of its header section, in total;
 *                             0 or less: none
 * @param maxConnections       connections each listener keeps open, or {@link ConnectionSettings#DERIVED}
 * @param maxPipelinedRequests requests a connection may have read ahead of the one being answered
 */
record H1Config(long contentLengthLimit, long firstDataTimeoutSecs, long persistentTimeoutSecs,
        long writeTimeoutSecs, long headerTimeoutSecs, int maxConnections, int maxPipelinedRequests) {

    /** The connection settings of {@code settings}, each missing one at its named default. */
    static H1Config from(HostSettings settings) {
        ConnectionSettings c = ConnectionSettings.from(settings);
        return new H1Config(c.contentLengthLimit(), c.firstDataTimeout().toSeconds(),
                c.persistentTimeout().toSeconds(), c.writeTimeout().toSeconds(), c.headerTimeout().toSeconds(),
                c.maxConnections(), Math.max(0, c.maxPipelinedRequests()));
    }
}
