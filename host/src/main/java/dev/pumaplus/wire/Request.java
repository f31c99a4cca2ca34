/*
 * The REQUEST payload: the host's timing points (T2, T2b, T3) and the Rack env pair list, written by the
 * worker link at dispatch and read by the worker (and by tests and tools through decode).
 */
package dev.pumaplus.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import java.util.List;
import java.util.Map;

/**
 * <pre>
 * +-----------------------+--------------------+----------------------+---------------------------+
 * | headers parsed T2(u64)| runnable T2b (u64) | dispatched T3 (u64)  | Rack env as a pair list   |
 * +-----------------------+--------------------+----------------------+---------------------------+
 * </pre>
 * All three are {@link System#nanoTime()} readings ({@code CLOCK_MONOTONIC} on Linux), in ns.
 *
 * <p>The host builds the env pair list once, at submit, before it knows T3; at dispatch
 * {@link #frame(ByteBufAllocator, long, long, long, ByteBuf, boolean)} puts a 24-byte prefix buffer in
 * front of it as a composite, so the env is never copied.
 *
 * @param headersParsedNanos T2
 * @param runnableNanos      T2b
 * @param dispatchedNanos    T3
 * @param env                the env pairs, names and values as ISO-8859-1 chars
 */
public record Request(long headersParsedNanos, long runnableNanos, long dispatchedNanos,
                      List<Map.Entry<String, String>> env) {

    /** Bytes before the pair list. */
    public static final int FIXED_LENGTH = 24;

    /**
     * Reads a REQUEST payload without moving its reader index.
     *
     * @throws ProtocolException when shorter than {@value #FIXED_LENGTH} bytes or the pair list is truncated
     */
    public static Request decode(ByteBuf payload) {
        PayloadLength.atLeast(payload, FIXED_LENGTH);
        List<Map.Entry<String, String>> env = PairList.decode(payload, FIXED_LENGTH);
        int i = payload.readerIndex();
        return new Request(payload.getLong(i), payload.getLong(i + 8), payload.getLong(i + 16), env);
    }

    /**
     * Checks a REQUEST payload without decoding it (FrameDecoder, for every frame it passes on).
     *
     * @throws ProtocolException as {@link #decode}
     */
    static void validate(ByteBuf payload) {
        PayloadLength.atLeast(payload, FIXED_LENGTH);
        PairList.validate(payload, FIXED_LENGTH);
    }

    /**
     * A REQUEST frame whose payload is a new 24-byte timing prefix followed by {@code env} (an encoded pair
     * list), as two components: {@code env} is not copied. Ownership of {@code env} transfers to the frame.
     */
    public static Frame frame(ByteBufAllocator alloc, long headersParsedNanos, long runnableNanos,
                              long dispatchedNanos, ByteBuf env, boolean endStream) {
        ByteBuf prefix = alloc.buffer(FIXED_LENGTH, FIXED_LENGTH);
        prefix.writeLong(headersParsedNanos).writeLong(runnableNanos).writeLong(dispatchedNanos);
        CompositeByteBuf payload = alloc.compositeBuffer(2);
        payload.addComponents(true, prefix, env);
        return Frame.of(FrameType.REQUEST, endStream, payload);
    }

    /** This request as a frame (encodes the env; for tests and tools, the host uses the static form). */
    public Frame toFrame(ByteBufAllocator alloc, boolean endStream) {
        return frame(alloc, headersParsedNanos, runnableNanos, dispatchedNanos, PairList.encode(alloc, env),
                endStream);
    }
}
