/*
 * One frame of the worker link as it leaves FrameDecoder or enters FrameEncoder: type, flags and the raw
 * payload. Everything between the host's dispatcher and a worker travels as these.
 */
package dev.pumaplus.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;
import io.netty.buffer.Unpooled;

/**
 * A frame: 8-byte header ({@code u8 type | u24 flags | u32 length}) plus payload. The payload is a
 * reference-counted buffer owned by this frame; release the frame (or pass it to a Netty pipeline, which
 * does) when done. Typed views of payloads: {@link Hello}, {@link Welcome}, {@link Goaway},
 * {@link PairList}, {@link Request}, {@link ResponseHead}. Not thread-safe; hand a frame from thread to
 * thread, never share.
 */
public final class Frame extends DefaultByteBufHolder {

    /** Bytes in a frame header. */
    public static final int HEADER_LENGTH = 8;
    /** The largest payload a frame may carry: 1 MiB. */
    public static final int MAX_PAYLOAD = 1 << 20;
    /** Flag bit 0: the sender's half of the exchange ends with this frame. */
    public static final int END_STREAM = 0x000001;

    private final int type;
    private final int flags;

    /**
     * @param type    a {@link FrameType} code
     * @param flags   the 24 flag bits; only {@link #END_STREAM} is defined
     * @param payload at most {@link #MAX_PAYLOAD} bytes; ownership transfers to the frame
     * @throws IllegalArgumentException when the payload is too long or the type unknown
     */
    public Frame(int type, int flags, ByteBuf payload) {
        super(payload);
        if (!FrameType.isKnown(type)) {
            payload.release();
            throw new IllegalArgumentException("unknown frame type 0x" + Integer.toHexString(type));
        }
        if (payload.readableBytes() > MAX_PAYLOAD) {
            int length = payload.readableBytes();
            payload.release();
            throw new IllegalArgumentException("payload of " + length + " bytes exceeds MAX_PAYLOAD");
        }
        this.type = type;
        this.flags = flags & 0xFFFFFF;
    }

    /** A frame with the given END_STREAM bit. */
    public static Frame of(int type, boolean endStream, ByteBuf payload) {
        return new Frame(type, endStream ? END_STREAM : 0, payload);
    }

    /** A frame with an empty payload. */
    public static Frame empty(int type, boolean endStream) {
        return of(type, endStream, Unpooled.EMPTY_BUFFER);
    }

    /** The {@link FrameType} code. */
    public int type() {
        return type;
    }

    /** The 24 flag bits as received or to be sent. */
    public int flags() {
        return flags;
    }

    /** True if the END_STREAM bit is set. */
    public boolean endStream() {
        return (flags & END_STREAM) != 0;
    }

    /** The payload (same as {@link #content()}); its reader index is not moved by the typed decoders. */
    public ByteBuf payload() {
        return content();
    }

    @Override
    public Frame replace(ByteBuf content) {
        return new Frame(type, flags, content);
    }

    @Override
    public Frame retain() {
        super.retain();
        return this;
    }

    @Override
    public String toString() {
        return "Frame(" + FrameType.name(type) + (endStream() ? ", END_STREAM" : "") + ", "
                + content().readableBytes() + " bytes)";
    }
}
