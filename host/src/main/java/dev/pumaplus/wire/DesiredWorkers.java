/*
 * The DESIRED_WORKERS payload (protocol version 3): the host tells the shepherd how many worker processes
 * to run. Sent by the fork actuator (via the host's shepherd link) when the autoscaling policy adds or
 * removes units; the shepherd forks or stops workers until it has that many.
 */
package dev.pumaplus.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * {@code u32 count}.
 *
 * @param count worker processes the shepherd should run (u32, held as a non-negative long)
 */
public record DesiredWorkers(long count) {

    /** Bytes in a DESIRED_WORKERS payload. */
    public static final int LENGTH = 4;

    /**
     * Reads a DESIRED_WORKERS payload without moving its reader index.
     *
     * @throws ProtocolException unless it is exactly 4 bytes
     */
    public static DesiredWorkers decode(ByteBuf payload) {
        if (payload.readableBytes() != LENGTH) {
            throw new ProtocolException("DESIRED_WORKERS payload of " + payload.readableBytes() + " bytes, 4 required");
        }
        return new DesiredWorkers(payload.getUnsignedInt(payload.readerIndex()));
    }

    /** This DESIRED_WORKERS as a frame. */
    public Frame toFrame(ByteBufAllocator alloc) {
        ByteBuf out = alloc.buffer(LENGTH);
        out.writeInt((int) count);
        return new Frame(FrameType.DESIRED_WORKERS, 0, out);
    }
}
