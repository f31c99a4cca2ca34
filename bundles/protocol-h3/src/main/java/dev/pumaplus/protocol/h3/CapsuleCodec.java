/*
 * The capsule protocol of RFC 9297 §3.2 on a WebTransport session's CONNECT stream (parse: the client's
 * CLOSE_WEBTRANSPORT_SESSION; respond: ours), inside HTTP/3 DATA frames.
 */
package dev.pumaplus.protocol.h3;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * <pre>
 * Capsule {                      CLOSE_WEBTRANSPORT_SESSION value {
 *   Capsule Type (i),              Application Error Code (32),
 *   Capsule Length (i),            Application Error Message (..1024 bytes UTF-8),
 *   Capsule Value (..),          }
 * }
 * </pre>
 * On the CONNECT stream the capsules travel inside HTTP/3 DATA frames (type 0x00); {@link #dataFrame} wraps
 * one. Encoders are pure; the decoder reads one capsule at a time and refuses one longer than its limit
 * before reading its value. Stateless; any thread.
 */
final class CapsuleCodec {

    /** One capsule: its type and value. */
    record Capsule(long type, byte[] value) {
    }

    /** A CLOSE_WEBTRANSPORT_SESSION's content. */
    record Close(long code, String reason) {
    }

    /** A capsule longer than the reader takes. */
    static final class TooLongException extends IOException {
        TooLongException(long length, int limit) {
            super("capsule of " + length + " bytes, more than " + limit);
        }
    }

    private CapsuleCodec() {
    }

    /** One capsule's bytes. */
    static byte[] encode(long type, byte[] value) {
        ByteBuffer out = ByteBuffer.allocate(QuicVarint.size(type) + QuicVarint.size(value.length) + value.length);
        QuicVarint.write(type, out);
        QuicVarint.write(value.length, out);
        out.put(value);
        return out.array();
    }

    /**
     * A CLOSE_WEBTRANSPORT_SESSION capsule; {@code code} is taken as an unsigned 32-bit number and the
     * reason is cut at {@link WebTransportCodes#MAX_CLOSE_REASON} bytes (never inside a character).
     */
    static byte[] encodeClose(long code, String reason) {
        byte[] text = truncate(reason == null ? "" : reason, WebTransportCodes.MAX_CLOSE_REASON);
        ByteBuffer value = ByteBuffer.allocate(4 + text.length);
        value.putInt((int) code);
        value.put(text);
        return encode(WebTransportCodes.CAPSULE_CLOSE_WEBTRANSPORT_SESSION, value.array());
    }

    /** The content of a CLOSE_WEBTRANSPORT_SESSION capsule's value; null when it is malformed. */
    static Close decodeClose(byte[] value) {
        if (value.length < 4 || value.length > 4 + WebTransportCodes.MAX_CLOSE_REASON) {
            return null;
        }
        long code = ByteBuffer.wrap(value).getInt() & 0xFFFF_FFFFL;
        return new Close(code, new String(value, 4, value.length - 4, StandardCharsets.UTF_8));
    }

    /** {@code payload} as one HTTP/3 DATA frame. */
    static byte[] dataFrame(byte[] payload) {
        ByteBuffer out = ByteBuffer.allocate(1 + QuicVarint.size(payload.length) + payload.length);
        QuicVarint.write(0x00, out);
        QuicVarint.write(payload.length, out);
        out.put(payload);
        return out.array();
    }

    /**
     * Reads the next capsule from {@code in} (the capsule bytes, DATA framing already removed). Null when the
     * stream ends between capsules; {@link EOFException} inside one; {@link TooLongException} when its length
     * is above {@code maxLength}, before its value is read.
     */
    static Capsule read(InputStream in, int maxLength) throws IOException {
        long type = QuicVarint.read(in);
        if (type < 0) {
            return null;
        }
        long length = QuicVarint.read(in);
        if (length < 0) {
            throw new EOFException("stream ended inside a capsule header");
        }
        if (length > maxLength) {
            throw new TooLongException(length, maxLength);
        }
        byte[] value = in.readNBytes((int) length);
        if (value.length < length) {
            throw new EOFException("stream ended inside a capsule");
        }
        return new Capsule(type, value);
    }

    private static byte[] truncate(String text, int max) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= max) {
            return bytes;
        }
        int end = max;
        while (end > 0 && (bytes[end] & 0xC0) == 0x80) {
            end--; // a continuation byte: the character it belongs to does not fit
        }
        byte[] cut = new byte[end];
        System.arraycopy(bytes, 0, cut, 0, end);
        return cut;
    }
}
