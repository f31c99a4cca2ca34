/*
 * Response header fields a protocol must know by name (respond step). The host has already dropped every
 * field no client may get (a name that is not a token, a value that could split a response) before a
 * protocol sees a head; what is left to a protocol is what its own framing forbids.
 */
package dev.pumaplus.spi;

import java.util.Set;

/** Constants. */
public final class HeaderFields {

    /**
     * The fields that belong to an HTTP/1.1 connection, in lower case, and so must not travel on an h2 or h3
     * stream (RFC 9113 8.2.2, RFC 9114 4.2).
     */
    public static final Set<String> CONNECTION_SPECIFIC =
            Set.of("connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade");

    private HeaderFields() {
    }
}
