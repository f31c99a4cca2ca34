/*
 * The GOAWAY payload: how either end of a worker link ends it — the host draining a peer on shutdown,
 * refusing a version, or reporting a protocol error; a worker announcing it will leave.
 */
package dev.pumaplus.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;

/**
 * {@code u16 code}, then a UTF-8 reason (a malformed sequence is read as U+FFFD: the reason is for people).
 *
 * @param code   one of the {@code CODE_*} constants (other values are passed through)
 * @param reason human-readable, may be empty
 */
public record Goaway(int code, String reason) {

    /** Drain and leave. */
    public static final int CODE_NORMAL = 0;
    /** The peer broke the protocol. */
    public static final int CODE_PROTOCOL_ERROR = 1;
    /** No common protocol version. */
    public static final int CODE_UNSUPPORTED_VERSION = 2;
    /** The sender failed internally. */
    public static final int CODE_INTERNAL_ERROR = 3;

    /**
     * Reads a GOAWAY payload without moving its reader index.
     *
     * @throws ProtocolException when shorter than 2 bytes
     */
    public static Goaway decode(ByteBuf payload) {
        PayloadLength.atLeast(payload, 2);
        int i = payload.readerIndex();
        return new Goaway(payload.getUnsignedShort(i),
                payload.toString(i + 2, payload.readableBytes() - 2, StandardCharsets.UTF_8));
    }

    /** This GOAWAY as a frame. */
    public Frame toFrame(ByteBufAllocator alloc) {
        byte[] text = reason.getBytes(StandardCharsets.UTF_8);
        ByteBuf out = alloc.buffer(2 + text.length);
        out.writeShort(code).writeBytes(text);
        return new Frame(FrameType.GOAWAY, 0, out);
    }
}
