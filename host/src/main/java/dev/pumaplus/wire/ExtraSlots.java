/*
 * The EXTRA_SLOTS frame (host → shepherd, protocol version 3): how many slots beyond `threads` the worker
 * processes should run in all, for the Ractor and thread actuators; the shepherd spreads them over its
 * workers (docs/PROTOCOL.md, "Extra slots").
 */
package dev.pumaplus.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Payload: {@code u32 count} (≥ 0), big-endian. Semantics are "desired total", never a delta, so a
 * repeated or late frame cannot over- or under-shoot; 0 retires every extra slot.
 *
 * @param count slots beyond {@code threads} the worker processes should run in all, 0..2^32-1
 */
public record ExtraSlots(long count) {

    public ExtraSlots {
        if (count < 0 || count > 0xFFFFFFFFL) {
            throw new IllegalArgumentException("extra slot count must be 0..2^32-1, got " + count);
        }
    }

    /** Decodes an EXTRA_SLOTS payload. */
    public static ExtraSlots decode(ByteBuf payload) {
        if (payload.readableBytes() != 4) {
            throw new ProtocolException("EXTRA_SLOTS payload must be 4 bytes, got " + payload.readableBytes());
        }
        return new ExtraSlots(payload.getUnsignedInt(payload.readerIndex()));
    }

    public Frame toFrame(ByteBufAllocator alloc) {
        ByteBuf out = alloc.buffer(4);
        out.writeInt((int) count);
        return new Frame(FrameType.EXTRA_SLOTS, 0, out);
    }
}
