/*
 * The REQUEST payload: the host's timing points (T2, T2b, T3) and the Rack env pair list, written by the
 * worker link at dispatch and read by the worker (and by tests and tools through decode).
 */
package dev.pumaplus.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
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
 * <p>The host builds the payload once, at submit, before it knows T3 ({@link #startPayload}: 24 bytes of
 * room, then the host's env encoder writes the pairs behind it); at dispatch
 * {@link #frame(ByteBuf, long, long, long, boolean)} writes the three timings into that room, so the env is
 * never copied and the frame is one buffer.
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
     * The start of a REQUEST payload whose timing is not known yet: {@value #FIXED_LENGTH} bytes left for it,
     * in a buffer with room for about {@code pairBytes} of pair list behind them (it grows if more are
     * written). The caller appends the env with {@link PairList#write} and owns the buffer;
     * {@link #frame(ByteBuf, long, long, long, boolean)} fills the timing in at dispatch.
     */
    public static ByteBuf startPayload(ByteBufAllocator alloc, int pairBytes) {
        ByteBuf out = alloc.buffer(FIXED_LENGTH + pairBytes);
        out.writeZero(FIXED_LENGTH);
        return out;
    }

    /** A REQUEST payload ({@link #startPayload}) holding {@code env}. */
    private static ByteBuf payload(ByteBufAllocator alloc, List<? extends Map.Entry<String, String>> env) {
        ByteBuf out = startPayload(alloc, PairList.encodedLength(env));
        PairList.write(env, out);
        return out;
    }

    /**
     * The REQUEST frame of {@code payload} (from {@link #startPayload}) with T2, T2b and T3 written into the
     * room it left for them: one buffer, nothing copied. Ownership of {@code payload} transfers to the frame.
     */
    public static Frame frame(ByteBuf payload, long headersParsedNanos, long runnableNanos, long dispatchedNanos,
                              boolean endStream) {
        int i = payload.readerIndex();
        payload.setLong(i, headersParsedNanos).setLong(i + 8, runnableNanos).setLong(i + 16, dispatchedNanos);
        return Frame.of(FrameType.REQUEST, endStream, payload);
    }

    /** This request as a frame (encodes the env; for tests and tools, the host uses the static form). */
    public Frame toFrame(ByteBufAllocator alloc, boolean endStream) {
        return frame(payload(alloc, env), headersParsedNanos, runnableNanos, dispatchedNanos, endStream);
    }
}
