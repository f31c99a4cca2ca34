/*
 * What WORKER_COUNT and EXTRA_SLOTS (host → shepherd) share: the payload is one u32, a desired total (never
 * a delta) of at least the type's minimum, so a repeated or late frame cannot over- or under-shoot.
 */
package dev.pumaplus.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/** Encodes, decodes and checks the {@code u32 count} payload. Stateless. */
final class DesiredCount {

    /** Bytes in the payload. */
    static final int LENGTH = 4;
    private static final long MAXIMUM = 0xFFFFFFFFL;

    private DesiredCount() {
    }

    /**
     * The count a record is built with.
     *
     * @throws IllegalArgumentException outside {@code minimum..2^32-1}: the host never asks for such a count
     */
    static long check(long count, long minimum) {
        if (count < minimum || count > MAXIMUM) {
            throw new IllegalArgumentException("count " + count + " outside " + minimum + "..2^32-1");
        }
        return count;
    }

    /**
     * The count in a received payload.
     *
     * @throws ProtocolException unless the payload is 4 bytes holding a count of at least {@code minimum}
     */
    static long decode(ByteBuf payload, long minimum) {
        PayloadLength.exactly(payload, LENGTH);
        long count = payload.getUnsignedInt(payload.readerIndex());
        if (count < minimum) {
            throw new ProtocolException("count " + count + ", at least " + minimum + " required");
        }
        return count;
    }

    /** A frame of {@code type} carrying {@code count}. */
    static Frame frame(ByteBufAllocator alloc, int type, long count) {
        ByteBuf out = alloc.buffer(LENGTH);
        out.writeInt((int) count);
        return new Frame(type, 0, out);
    }
}
