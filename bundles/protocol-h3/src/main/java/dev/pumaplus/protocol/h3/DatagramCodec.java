/*
 * HTTP datagrams of RFC 9297 §2.1 over QUIC DATAGRAM frames (RFC 9221): the payload of a WebTransport
 * session's datagram is prefixed with its quarter stream id, the CONNECT stream's id divided by four
 * (parse: the client's datagrams to their session; respond: the app's datagrams).
 */
package dev.pumaplus.protocol.h3;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;

/**
 * <pre>
 * HTTP/3 Datagram {
 *   Quarter Stream ID (i),
 *   HTTP Datagram Payload (..),
 * }
 * </pre>
 * Stateless; any thread.
 */
final class DatagramCodec {

    /** A decoded datagram: the CONNECT stream it belongs to and its payload. */
    record Datagram(long sessionId, byte[] payload) {
    }

    private DatagramCodec() {
    }

    /** The QUIC DATAGRAM frame's content for {@code payload} of the session on CONNECT stream {@code sessionId}. */
    static byte[] encode(long sessionId, byte[] payload) {
        long quarter = sessionId / 4;
        ByteBuffer out = ByteBuffer.allocate(QuicVarint.size(quarter) + payload.length);
        QuicVarint.write(quarter, out);
        out.put(payload);
        return out.array();
    }

    /**
     * The session and payload of a QUIC DATAGRAM frame's content; null when it does not hold a whole quarter
     * stream id (RFC 9297 §2.1: an H3_DATAGRAM_ERROR).
     */
    static Datagram decode(byte[] frame) {
        ByteBuffer in = ByteBuffer.wrap(frame);
        try {
            long quarter = QuicVarint.read(in);
            byte[] payload = new byte[in.remaining()];
            in.get(payload);
            return new Datagram(quarter * 4, payload);
        } catch (BufferUnderflowException e) {
            return null;
        }
    }
}
