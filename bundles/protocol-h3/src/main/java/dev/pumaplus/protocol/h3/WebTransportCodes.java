/*
 * The numbers of WebTransport over HTTP/3 that this bundle puts on the wire or checks (settings, stream
 * and frame types, capsule types, error codes), named once; see docs/WEBTRANSPORT.md for the drafts.
 */
package dev.pumaplus.protocol.h3;

/**
 * Sources: RFC 9220 (extended CONNECT), RFC 9297 (HTTP datagrams, capsules), RFC 9221 (QUIC datagrams) and
 * draft-ietf-webtrans-http3-02, the draft Chromium speaks (AnnouncedSettings); the stream, capsule and
 * error codes below kept their values in the later drafts.
 */
final class WebTransportCodes {

    private WebTransportCodes() {
    }

    /** RFC 9220 §3: the server accepts extended CONNECT (Flupke's server sends it always). */
    static final long SETTINGS_ENABLE_CONNECT_PROTOCOL = 0x08;
    /** RFC 9297 §2.1.1: HTTP datagrams are accepted. */
    static final long SETTINGS_H3_DATAGRAM = 0x33;
    /** draft-ietf-webtrans-http3-02: WebTransport is enabled (value 1). */
    static final long SETTINGS_ENABLE_WEBTRANSPORT_DRAFT02 = 0x2b603742L;

    /** The unidirectional stream type of a WebTransport stream, followed by its session id. */
    static final long STREAM_TYPE_WEBTRANSPORT = 0x54;
    /** The first "frame" of a bidirectional WebTransport stream, followed by its session id. */
    static final long FRAME_TYPE_WEBTRANSPORT_STREAM = 0x41;

    /** The capsule that ends a session: a 32-bit application code and a UTF-8 reason. */
    static final long CAPSULE_CLOSE_WEBTRANSPORT_SESSION = 0x2843;
    /** A CLOSE_WEBTRANSPORT_SESSION's reason at most, bytes. */
    static final int MAX_CLOSE_REASON = 1024;

    /** RFC 9114 §8.1. */
    static final long H3_NO_ERROR = 0x100;
    static final long H3_GENERAL_PROTOCOL_ERROR = 0x101;
    static final long H3_ID_ERROR = 0x108;
    static final long H3_MESSAGE_ERROR = 0x10e;
    static final long H3_EXCESSIVE_LOAD = 0x107;
    /** RFC 9297 §5.2: a malformed datagram or capsule. */
    static final long H3_DATAGRAM_ERROR = 0x33;
    /** draft-ietf-webtrans-http3: a stream's session has closed. */
    static final long WEBTRANSPORT_SESSION_GONE = 0x170d7b68L;
    /** draft-ietf-webtrans-http3: a stream whose session never came (or is refused). */
    static final long WEBTRANSPORT_BUFFERED_STREAM_REJECTED = 0x3994bd84L;
}
