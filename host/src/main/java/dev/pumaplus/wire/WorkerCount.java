/*
 * The WORKER_COUNT frame (host → shepherd, protocol version 3): how many worker processes the shepherd
 * should run. Sent on TTIN/TTOU; the shepherd forks or retires workers until it runs that many.
 */
package dev.pumaplus.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Payload: {@code u32 count} (≥ 1), big-endian. Semantics are "desired worker process count", never a
 * delta, so a repeated or late frame cannot over- or under-shoot.
 *
 * @param count worker processes the shepherd should run, at least 1
 */
public record WorkerCount(long count) {

    public WorkerCount {
        if (count < 1 || count > 0xFFFFFFFFL) {
            throw new IllegalArgumentException("worker count must be 1..2^32-1, got " + count);
        }
    }

    /** Decodes a WORKER_COUNT payload. */
    public static WorkerCount decode(ByteBuf payload) {
        if (payload.readableBytes() != 4) {
            throw new ProtocolException("WORKER_COUNT payload must be 4 bytes, got " + payload.readableBytes());
        }
        return new WorkerCount(payload.getUnsignedInt(payload.readerIndex()));
    }

    public Frame toFrame(ByteBufAllocator alloc) {
        ByteBuf out = alloc.buffer(4);
        out.writeInt((int) count);
        return new Frame(FrameType.WORKER_COUNT, 0, out);
    }
}
