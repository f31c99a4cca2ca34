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
 * @param firstDataTimeoutSecs seconds a new connection may take to send its first bytes; 0 or less: none
 * @param persistentTimeoutSecs seconds an idle keep-alive connection is kept open; 0 or less: none
 * @param writeTimeoutSecs     seconds response bytes may wait in the channel without any of them reaching
 *                             the socket before the connection is closed (puma's WRITE_TIMEOUT); 0 or
 *                             less: none
 */
record H1Config(long contentLengthLimit, long firstDataTimeoutSecs, long persistentTimeoutSecs,
        long writeTimeoutSecs) {

    /** The connection settings of {@code settings}, each missing one at its named default. */
    static H1Config from(HostSettings settings) {
        ConnectionSettings c = ConnectionSettings.from(settings);
        return new H1Config(c.contentLengthLimit(), c.firstDataTimeout().toSeconds(),
                c.persistentTimeout().toSeconds(), c.writeTimeout().toSeconds());
    }
}
