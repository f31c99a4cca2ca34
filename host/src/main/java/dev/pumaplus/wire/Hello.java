/*
 * The HELLO payload: the first frame every peer (shepherd, worker thread, or a worker's hijack connection)
 * sends when it dials in to the host's link socket; the host decides from it whether and how the link joins
 * the dispatcher.
 */
package dev.pumaplus.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * {@code u16 version, u16 role, u32 pid, u32 generation, u32 worker index, u32 thread index}, then for role
 * 2 only the ASCII {@code request=<id>}, naming the request whose client connection the link carries. Roles
 * 0 and 1 send nothing after the fixed fields, and a receiver ignores what follows them there: the version
 * is read from every HELLO, so a later version's may be longer. The u32 fields are held as non-negative
 * longs.
 *
 * @param version     the highest protocol version the peer speaks
 * @param role        {@link #ROLE_WORKER}, {@link #ROLE_SHEPHERD} or {@link #ROLE_HIJACK}
 * @param pid         the peer's process id
 * @param generation  the app generation the peer belongs to
 * @param workerIndex the worker process's index (0 for the shepherd)
 * @param threadIndex the thread's index inside its worker (0 for the shepherd)
 * @param requestId   for role 2 the hijacked request's {@code puma_plus.request_id} (1..2^63-1), else 0
 */
public record Hello(int version, int role, long pid, long generation, long workerIndex, long threadIndex,
                    long requestId) {

    /** Role of a worker thread's link: one slot. */
    public static final int ROLE_WORKER = 0;
    /** Role of the shepherd's control link. */
    public static final int ROLE_SHEPHERD = 1;
    /**
     * Role of a worker's hijack connection: after WELCOME it carries the raw bytes of the client connection
     * request {@link #requestId()} took over.
     */
    public static final int ROLE_HIJACK = 2;
    /** Bytes before the role-2 request name. */
    public static final int FIXED_LENGTH = 20;
    /** What a role-2 HELLO carries after its fixed fields, before the request id in decimal. */
    private static final String REQUEST = "request=";
    /** A request id: decimal, no sign, no leading zero, at most 19 digits (the range is checked on parsing). */
    private static final Pattern ID = Pattern.compile("[1-9][0-9]{0,18}");

    /** @throws IllegalArgumentException when a role-2 HELLO names no request or another role names one */
    public Hello {
        if (requestId < 0 || (role == ROLE_HIJACK) != (requestId > 0)) {
            throw new IllegalArgumentException("role " + role + " with request id " + requestId);
        }
    }

    /** A worker's or the shepherd's HELLO, which names no request. */
    public Hello(int version, int role, long pid, long generation, long workerIndex, long threadIndex) {
        this(version, role, pid, generation, workerIndex, threadIndex, 0);
    }

    /**
     * Reads a HELLO payload without moving its reader index.
     *
     * @throws ProtocolException when shorter than {@value #FIXED_LENGTH} bytes, its role is not 0, 1 or 2, or
     *                           a role-2 HELLO does not end in exactly {@code request=<id>}
     */
    public static Hello decode(ByteBuf payload) {
        PayloadLength.atLeast(payload, FIXED_LENGTH);
        int i = payload.readerIndex();
        int role = payload.getUnsignedShort(i + 2);
        long requestId = switch (role) {
            case ROLE_WORKER, ROLE_SHEPHERD -> 0;
            case ROLE_HIJACK -> requestId(payload.toString(i + FIXED_LENGTH, payload.readableBytes() - FIXED_LENGTH,
                    StandardCharsets.ISO_8859_1));
            default -> throw new ProtocolException("role " + role + ", 0, 1 or 2 required");
        };
        return new Hello(payload.getUnsignedShort(i), role, payload.getUnsignedInt(i + 4),
                payload.getUnsignedInt(i + 8), payload.getUnsignedInt(i + 12), payload.getUnsignedInt(i + 16),
                requestId);
    }

    private static long requestId(String name) {
        String digits = name.startsWith(REQUEST) ? name.substring(REQUEST.length()) : "";
        try {
            if (ID.matcher(digits).matches()) {
                return Long.parseLong(digits);
            }
        } catch (NumberFormatException beyondU63) {
            // falls through: 19 digits above 2^63-1 name no request either
        }
        throw new ProtocolException("role 2 names no request, \"request=<id>\" required");
    }

    /** This HELLO as a payload buffer; the caller owns it. */
    public ByteBuf encode(ByteBufAllocator alloc) {
        String name = role == ROLE_HIJACK ? REQUEST + requestId : "";
        ByteBuf out = alloc.buffer(FIXED_LENGTH + name.length());
        out.writeShort(version).writeShort(role).writeInt((int) pid).writeInt((int) generation)
                .writeInt((int) workerIndex).writeInt((int) threadIndex);
        out.writeCharSequence(name, StandardCharsets.US_ASCII);
        return out;
    }

    /** This HELLO as a frame. */
    public Frame toFrame(ByteBufAllocator alloc) {
        return new Frame(FrameType.HELLO, 0, encode(alloc));
    }
}
