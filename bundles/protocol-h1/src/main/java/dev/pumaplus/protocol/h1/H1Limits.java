/*
 * The fixed HTTP/1.x limits applied while parsing (the parse step of accept → parse → queue → ...); the size
 * at which a request body stops being held and starts streaming is RequestBodyBuffer's, shared by every
 * protocol.
 */
package dev.pumaplus.protocol.h1;

/** Constants only; the values follow puma's so a client sees the same limits as under puma. */
final class H1Limits {

    // ---- request parsing (H1HeadValidator, H1RequestDecoder); listed in docs/SECURITY.md ----

    /** Longest request-target (bytes) before the request is answered with 414; puma's MAX_REQUEST_URI_LENGTH. */
    static final int MAX_TARGET_BYTES = 12 * 1024;

    /**
     * Longest request line (bytes, without its CRLF; empty lines before it count) before the request is
     * answered with 414: the target limit plus room for a method and the version.
     */
    static final int MAX_REQUEST_LINE_BYTES = MAX_TARGET_BYTES + 1024;

    /**
     * Largest header section (bytes: the field lines without their CRLFs) before the request is answered
     * with 431; puma's MAX_HEADER. Netty applies it to a chunked body's trailer section too (400 there).
     */
    static final int MAX_HEADER_BYTES = 112 * 1024;

    /** Largest body piece (bytes) the decoder hands on at once. */
    static final int MAX_CHUNK_BYTES = 64 * 1024;

    /** First size (bytes) of the decoder's line buffer, which grows up to the limits above; Netty's default. */
    static final int INITIAL_LINE_BUFFER_BYTES = 128;

    private H1Limits() {
    }
}
