/*
 * The HELLO payload: the first frame every peer (shepherd or worker thread) sends when it dials in to the
 * host's link socket; the host decides from it whether and how the link joins the dispatcher.
 */
package dev.pumaplus.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;

/**
 * {@code u16 version, u16 role, u32 pid, u32 generation, u32 worker index, u32 thread index}, then the
 * capabilities as space-separated ASCII tokens. The u32 fields are held as non-negative longs.
 *
 * @param version      the highest protocol version the peer speaks
 * @param role         {@link #ROLE_WORKER}, {@link #ROLE_SHEPHERD} or {@link #ROLE_HIJACK}
 * @param pid          the peer's process id
 * @param generation   the app generation the peer belongs to
 * @param workerIndex  the worker process's index (0 for the shepherd)
 * @param threadIndex  the thread's index inside its worker (0 for the shepherd)
 * @param capabilities the capability tokens, possibly empty
 */
public record Hello(int version, int role, long pid, long generation, long workerIndex, long threadIndex,
                    String capabilities) {

    /** Role of a worker thread's link: one slot. */
    public static final int ROLE_WORKER = 0;
    /** Role of the shepherd's control link. */
    public static final int ROLE_SHEPHERD = 1;
    /**
     * Role of a worker's hijack connection: after WELCOME it carries the raw bytes of the client connection
     * a request on link {@code link=<id>} (named in the capabilities) took over.
     */
    public static final int ROLE_HIJACK = 2;
    /** Bytes before the capabilities. */
    public static final int FIXED_LENGTH = 20;

    /**
     * Reads a HELLO payload without moving its reader index.
     *
     * @throws ProtocolException when shorter than {@value #FIXED_LENGTH} bytes
     */
    public static Hello decode(ByteBuf payload) {
        if (payload.readableBytes() < FIXED_LENGTH) {
            throw new ProtocolException("HELLO payload of " + payload.readableBytes() + " bytes, at least "
                    + FIXED_LENGTH + " required");
        }
        int i = payload.readerIndex();
        return new Hello(payload.getUnsignedShort(i), payload.getUnsignedShort(i + 2),
                payload.getUnsignedInt(i + 4), payload.getUnsignedInt(i + 8), payload.getUnsignedInt(i + 12),
                payload.getUnsignedInt(i + 16),
                payload.toString(i + FIXED_LENGTH, payload.readableBytes() - FIXED_LENGTH,
                        StandardCharsets.ISO_8859_1));
    }

    /** This HELLO as a payload buffer; the caller owns it. */
    public ByteBuf encode(ByteBufAllocator alloc) {
        ByteBuf out = alloc.buffer(FIXED_LENGTH + capabilities.length());
        out.writeShort(version).writeShort(role).writeInt((int) pid).writeInt((int) generation)
                .writeInt((int) workerIndex).writeInt((int) threadIndex);
        out.writeCharSequence(capabilities, StandardCharsets.ISO_8859_1);
        return out;
    }

    /** This HELLO as a frame. */
    public Frame toFrame(ByteBufAllocator alloc) {
        return new Frame(FrameType.HELLO, 0, encode(alloc));
    }
}
