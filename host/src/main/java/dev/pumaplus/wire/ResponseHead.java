/*
 * The RESPONSE_HEAD payload: status, the worker's timing points (T4, T5, body-read ns) and the headers a
 * worker returns for the request it was dispatched; the host measures service time from it and forwards
 * status and headers to the protocol bundle's ResponseSink.
 */
package dev.pumaplus.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.List;
import java.util.Map;

/**
 * <pre>
 * +-------------+---------------+-------------------+---------------------+------------------+-----------+
 * | status (u16)| reserved (u16)| app called T4(u64)| app returned T5(u64)| body read ns(u64)| pair list |
 * +-------------+---------------+-------------------+---------------------+------------------+-----------+
 * </pre>
 * T4 and T5 are the worker's {@code CLOCK_MONOTONIC} readings in ns, the same clock as the host's
 * {@link System#nanoTime()}; body read is a duration in ns. The u64 fields are held as Java longs (a
 * monotonic reading fits in 63 bits).
 *
 * @param status          the HTTP status code
 * @param appCalledNanos  T4: just before {@code app.call}
 * @param appReturnedNanos T5: {@code app.call} returned
 * @param bodyReadNanos   ns the worker spent reading BODY frames for this request (0 without a body)
 * @param headers         names and values as ISO-8859-1 chars, one per byte; a name may repeat
 */
public record ResponseHead(int status, long appCalledNanos, long appReturnedNanos, long bodyReadNanos,
                           List<Map.Entry<String, String>> headers) {

    /** Bytes before the pair list. */
    public static final int FIXED_LENGTH = 28;

    /**
     * Reads a RESPONSE_HEAD payload without moving its reader index. The returned header list is a new,
     * mutable list owned by the caller (the host appends Server-Timing to it).
     *
     * @throws ProtocolException when shorter than {@value #FIXED_LENGTH} bytes or the pair list is truncated
     */
    public static ResponseHead decode(ByteBuf payload) {
        PayloadLength.atLeast(payload, FIXED_LENGTH);
        int i = payload.readerIndex();
        return new ResponseHead(payload.getUnsignedShort(i), payload.getLong(i + 4), payload.getLong(i + 12),
                payload.getLong(i + 20), PairList.decode(payload, FIXED_LENGTH));
    }

    /**
     * Checks a RESPONSE_HEAD or HIJACK_HEAD payload without decoding it (FrameDecoder, for every frame it
     * passes on).
     *
     * @throws ProtocolException as {@link #decode}
     */
    static void validate(ByteBuf payload) {
        PayloadLength.atLeast(payload, FIXED_LENGTH);
        PairList.validate(payload, FIXED_LENGTH);
    }

    /** This head as a frame. */
    public Frame toFrame(ByteBufAllocator alloc, boolean endStream) {
        return toFrame(alloc, FrameType.RESPONSE_HEAD, endStream);
    }

    /** This head as a frame of {@code type}: RESPONSE_HEAD, or HIJACK_HEAD (same layout). */
    public Frame toFrame(ByteBufAllocator alloc, int type, boolean endStream) {
        ByteBuf out = alloc.buffer(FIXED_LENGTH + PairList.encodedLength(headers));
        out.writeShort(status).writeShort(0).writeLong(appCalledNanos).writeLong(appReturnedNanos)
                .writeLong(bodyReadNanos);
        PairList.write(headers, out);
        return Frame.of(type, endStream, out);
    }
}
