/*
 * The WELCOME payload: the host's answer to an acceptable HELLO, after which a worker link is a free slot
 * in the dispatcher (or the shepherd link may send CONFIG).
 */
package dev.pumaplus.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * {@code u16 version, u16 reserved (0), u32 link id}.
 *
 * @param version the protocol version the host will speak on this link
 * @param linkId  the host-assigned id of the link (u32, held as a non-negative long)
 */
public record Welcome(int version, long linkId) {

    /** Bytes in a WELCOME payload. */
    public static final int LENGTH = 8;

    /**
     * Reads a WELCOME payload without moving its reader index.
     *
     * @throws ProtocolException unless it is exactly 8 bytes
     */
    public static Welcome decode(ByteBuf payload) {
        PayloadLength.exactly(payload, LENGTH);
        int i = payload.readerIndex();
        return new Welcome(payload.getUnsignedShort(i), payload.getUnsignedInt(i + 4));
    }

    /** This WELCOME as a frame. */
    public Frame toFrame(ByteBufAllocator alloc) {
        ByteBuf out = alloc.buffer(LENGTH);
        out.writeShort(version).writeShort(0).writeInt((int) linkId);
        return new Frame(FrameType.WELCOME, 0, out);
    }
}
