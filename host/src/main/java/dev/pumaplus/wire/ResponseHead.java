/*
 * The RESPONSE_HEAD payload: status, the worker's timing points (T4, T5, body-read ns, GVL wait ns when
 * measured) and the headers a
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
 * +-------------+---------------+-------------------+---------------------+------------------+
 * | status (u16)| reserved (u16)| app called T4(u64)| app returned T5(u64)| body read ns(u64)|
 * +-------------+---------------+-------------------+---------------------+------------------+
 * +--------------------------------------------+-----------+
 * | GVL wait ns (u64), only with flag GVL_WAIT | pair list |
 * +--------------------------------------------+-----------+
 * </pre>
 * T4 and T5 are the worker's {@code CLOCK_MONOTONIC} readings in ns, the same clock as the host's
 * {@link System#nanoTime()}; body read and GVL wait are durations in ns. The u64 fields are held as Java
 * longs (a monotonic reading fits in 63 bits). The frame flag {@link #GVL_WAIT} (version 6) says the GVL
 * wait field is there: a worker that measures it (Ruby 3.2+) sends it, one that cannot (Ruby 3.1) leaves the
 * flag clear, and such a head's GVL wait is unknown ({@link #GVL_WAIT_UNKNOWN}), never 0.
 *
 * @param status          the HTTP status code
 * @param appCalledNanos  T4: just before {@code app.call}
 * @param appReturnedNanos T5: {@code app.call} returned
 * @param bodyReadNanos   ns the worker spent reading BODY frames for this request (0 without a body)
 * @param headers         names and values as ISO-8859-1 chars, one per byte; a name may repeat
 * @param gvlWaitNanos    ns the serving thread waited for its process's GVL between T4 and T5;
 *                        {@link #GVL_WAIT_UNKNOWN} when the worker does not measure it
 */
public record ResponseHead(int status, long appCalledNanos, long appReturnedNanos, long bodyReadNanos,
                           List<Map.Entry<String, String>> headers, long gvlWaitNanos) {

    /** Bytes before the pair list without {@link #GVL_WAIT}. */
    public static final int FIXED_LENGTH = 28;
    /** Bytes before the pair list with {@link #GVL_WAIT}. */
    public static final int GVL_FIXED_LENGTH = 36;
    /** The frame flag (RESPONSE_HEAD and HIJACK_HEAD, version 6): a u64 GVL wait follows body read. */
    public static final int GVL_WAIT = 0x000002;
    /** {@link #gvlWaitNanos()} of a head without {@link #GVL_WAIT}: not measured. */
    public static final long GVL_WAIT_UNKNOWN = -1;

    /** A head without a GVL wait measurement. */
    public ResponseHead(int status, long appCalledNanos, long appReturnedNanos, long bodyReadNanos,
                        List<Map.Entry<String, String>> headers) {
        this(status, appCalledNanos, appReturnedNanos, bodyReadNanos, headers, GVL_WAIT_UNKNOWN);
    }

    /** Whether the worker measured this request's GVL wait. */
    public boolean gvlWaitKnown() {
        return gvlWaitNanos >= 0;
    }

    /**
     * Reads the payload of a RESPONSE_HEAD or HIJACK_HEAD frame without moving its reader index. The
     * returned header list is a new, mutable list owned by the caller (the host appends Server-Timing to it).
     *
     * @throws ProtocolException when shorter than its fixed bytes ({@value #FIXED_LENGTH}, or
     *                           {@value #GVL_FIXED_LENGTH} with {@link #GVL_WAIT}) or the pair list is truncated
     */
    public static ResponseHead decode(Frame frame) {
        return decode(frame.payload(), frame.flags());
    }

    /** As {@link #decode(Frame)}, for a payload sent with frame flags {@code flags}. */
    public static ResponseHead decode(ByteBuf payload, int flags) {
        boolean gvl = (flags & GVL_WAIT) != 0;
        int fixed = gvl ? GVL_FIXED_LENGTH : FIXED_LENGTH;
        PayloadLength.atLeast(payload, fixed);
        int i = payload.readerIndex();
        return new ResponseHead(payload.getUnsignedShort(i), payload.getLong(i + 4), payload.getLong(i + 12),
                payload.getLong(i + 20), PairList.decode(payload, fixed),
                gvl ? payload.getLong(i + 28) : GVL_WAIT_UNKNOWN);
    }

    /**
     * Checks a RESPONSE_HEAD or HIJACK_HEAD payload sent with {@code flags} without decoding it
     * (FrameDecoder, for every frame it passes on).
     *
     * @throws ProtocolException as {@link #decode(Frame)}
     */
    static void validate(ByteBuf payload, int flags) {
        int fixed = (flags & GVL_WAIT) != 0 ? GVL_FIXED_LENGTH : FIXED_LENGTH;
        PayloadLength.atLeast(payload, fixed);
        PairList.validate(payload, fixed);
    }

    /** This head as a frame. */
    public Frame toFrame(ByteBufAllocator alloc, boolean endStream) {
        return toFrame(alloc, FrameType.RESPONSE_HEAD, endStream);
    }

    /**
     * This head as a frame of {@code type}: RESPONSE_HEAD, or HIJACK_HEAD (same layout); with
     * {@link #GVL_WAIT} when the GVL wait is known.
     */
    public Frame toFrame(ByteBufAllocator alloc, int type, boolean endStream) {
        boolean gvl = gvlWaitKnown();
        ByteBuf out = alloc.buffer((gvl ? GVL_FIXED_LENGTH : FIXED_LENGTH) + PairList.encodedLength(headers));
        out.writeShort(status).writeShort(0).writeLong(appCalledNanos).writeLong(appReturnedNanos)
                .writeLong(bodyReadNanos);
        if (gvl) {
            out.writeLong(gvlWaitNanos);
        }
        PairList.write(headers, out);
        return new Frame(type, (endStream ? Frame.END_STREAM : 0) | (gvl ? GVL_WAIT : 0), out);
    }
}
