/*
 * QUIC's variable-length integer (RFC 9000 §16), the unit of every WebTransport header this bundle reads or
 * writes itself (parse and respond steps of a WebTransport session: stream headers, capsules, datagrams).
 */
package dev.pumaplus.protocol.h3;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;

/**
 * <pre>
 *  2 msb | length | usable bits | range
 *  00    | 1      | 6           | 0..63
 *  01    | 2      | 14          | 0..16383
 *  10    | 4      | 30          | 0..1073741823
 *  11    | 8      | 62          | 0..4611686018427387903
 * </pre>
 * The encoder always takes the shortest form; the decoder takes any form. Stateless; any thread.
 */
final class QuicVarint {

    /** The largest value a varint holds, 2^62 - 1. */
    static final long MAX = (1L << 62) - 1;

    private QuicVarint() {
    }

    /** Bytes {@code value} takes in its shortest form. */
    static int size(long value) {
        if (value < 0 || value > MAX) {
            throw new IllegalArgumentException("not a QUIC varint: " + value);
        }
        return value < 0x40 ? 1 : value < 0x4000 ? 2 : value < 0x4000_0000 ? 4 : 8;
    }

    /** Writes {@code value} in its shortest form at {@code out}'s position. */
    static void write(long value, ByteBuffer out) {
        switch (size(value)) {
            case 1 -> out.put((byte) value);
            case 2 -> out.putShort((short) (value | 0x4000));
            case 4 -> out.putInt((int) (value | 0x8000_0000L));
            default -> out.putLong(value | 0xC000_0000_0000_0000L);
        }
    }

    /** {@code value} in its shortest form. */
    static byte[] encode(long value) {
        ByteBuffer out = ByteBuffer.allocate(size(value));
        write(value, out);
        return out.array();
    }

    /** Reads one varint at {@code in}'s position; {@link BufferUnderflowException} when it is cut short. */
    static long read(ByteBuffer in) {
        int first = in.get() & 0xFF;
        int length = 1 << (first >> 6);
        long value = first & 0x3F;
        for (int i = 1; i < length; i++) {
            value = (value << 8) | (in.get() & 0xFF);
        }
        return value;
    }

    /**
     * Reads one varint from a stream, blocking. -1 when the stream ends before its first byte;
     * {@link EOFException} when it ends inside one.
     */
    static long read(InputStream in) throws IOException {
        int first = in.read();
        if (first < 0) {
            return -1;
        }
        int length = 1 << (first >> 6);
        long value = first & 0x3F;
        for (int i = 1; i < length; i++) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("stream ended inside a varint");
            }
            value = (value << 8) | b;
        }
        return value;
    }
}
