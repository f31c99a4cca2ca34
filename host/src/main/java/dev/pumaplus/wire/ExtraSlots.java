/*
 * The EXTRA_SLOTS frame (host → shepherd, protocol version 3): how many slots beyond `threads` the worker
 * processes should run in all, for the Ractor and thread actuators; the shepherd spreads them over its
 * workers (docs/PROTOCOL.md, "Extra slots").
 */
package dev.pumaplus.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Payload: {@code u32 count} (≥ 0), big-endian, a desired total ({@link DesiredCount}); 0 retires every
 * extra slot.
 *
 * @param count slots beyond {@code threads} the worker processes should run in all, 0..2^32-1
 */
public record ExtraSlots(long count) {

    /** @throws IllegalArgumentException when {@code count} is outside 0..2^32-1 */
    public ExtraSlots {
        DesiredCount.check(count, 0);
    }

    /**
     * Reads an EXTRA_SLOTS payload; every u32 is a valid count.
     *
     * @throws ProtocolException unless it is 4 bytes
     */
    public static ExtraSlots decode(ByteBuf payload) {
        return new ExtraSlots(DesiredCount.decode(payload, 0));
    }

    /** This count as a frame. */
    public Frame toFrame(ByteBufAllocator alloc) {
        return DesiredCount.frame(alloc, FrameType.EXTRA_SLOTS, count);
    }
}
