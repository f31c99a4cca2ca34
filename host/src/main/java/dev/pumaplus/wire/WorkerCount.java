/*
 * The WORKER_COUNT frame (host → shepherd, protocol version 3): how many worker processes the shepherd
 * should run. Sent on TTIN/TTOU; the shepherd forks or retires workers until it runs that many.
 */
package dev.pumaplus.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Payload: {@code u32 count} (≥ 1), big-endian, a desired total ({@link DesiredCount}). A shepherd cannot
 * run no worker, so 0 is malformed.
 *
 * @param count worker processes the shepherd should run, 1..2^32-1
 */
public record WorkerCount(long count) {

    /** The smallest count the payload may carry. */
    public static final long MINIMUM = 1;

    /** @throws IllegalArgumentException when {@code count} is outside 1..2^32-1 */
    public WorkerCount {
        DesiredCount.check(count, MINIMUM);
    }

    /**
     * Reads a WORKER_COUNT payload.
     *
     * @throws ProtocolException unless it is 4 bytes holding a count of at least 1
     */
    public static WorkerCount decode(ByteBuf payload) {
        return new WorkerCount(DesiredCount.decode(payload, MINIMUM));
    }

    /** This count as a frame. */
    public Frame toFrame(ByteBufAllocator alloc) {
        return DesiredCount.frame(alloc, FrameType.WORKER_COUNT, count);
    }
}
