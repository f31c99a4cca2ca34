/*
 * The fixed HTTP/1.1 limits applied while parsing (the parse step of accept → parse → queue → ...); the size
 * at which a request body stops being held in memory and is spooled to a file is RequestBodyBuffer's, shared
 * by every protocol.
 */
package dev.pumaplus.protocol.h1;

/** Constants only; the values follow puma's so a client sees the same limits as under puma. */
final class H1Limits {

    /** Longest request-target (bytes) before the request is answered with 414; puma's MAX_REQUEST_URI_LENGTH. */
    static final int MAX_TARGET_BYTES = 12 * 1024;

    /** Longest request line (bytes): the target limit plus room for a method and the version. */
    static final int MAX_REQUEST_LINE_BYTES = MAX_TARGET_BYTES + 1024;

    /** Largest header section (bytes) before the request is answered with 431; puma's MAX_HEADER. */
    static final int MAX_HEADER_BYTES = 112 * 1024;

    /** Largest body piece (bytes) the decoder hands on at once. */
    static final int MAX_CHUNK_BYTES = 64 * 1024;

    private H1Limits() {
    }
}
