/*
 * The RESPONSE_FILE payload: a region of a file that a worker's response body consists of (a Rack body
 * answering to_path); the host sends it to the client itself instead of the worker copying it through Ruby.
 */
package dev.pumaplus.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;

/**
 * {@code u64 offset, u64 length}, then the file's absolute path (printable ASCII; the worker sends no
 * other path, so the host's file-name encoding cannot matter).
 *
 * @param offset where the region starts in the file (bytes)
 * @param length how many bytes of the file to send
 * @param path   the file's absolute path
 */
public record ResponseFile(long offset, long length, String path) {

    /** Bytes before the path. */
    public static final int FIXED_LENGTH = 16;

    /**
     * Reads a RESPONSE_FILE payload without moving its reader index.
     *
     * @throws ProtocolException when it has no path, or offset or length is negative as a signed 64-bit value
     */
    public static ResponseFile decode(ByteBuf payload) {
        if (payload.readableBytes() <= FIXED_LENGTH) {
            throw new ProtocolException("RESPONSE_FILE payload of " + payload.readableBytes()
                    + " bytes, more than " + FIXED_LENGTH + " required");
        }
        int i = payload.readerIndex();
        long offset = payload.getLong(i);
        long length = payload.getLong(i + 8);
        if (offset < 0 || length < 0) {
            throw new ProtocolException("RESPONSE_FILE offset or length out of range");
        }
        String path = payload.toString(i + FIXED_LENGTH, payload.readableBytes() - FIXED_LENGTH,
                StandardCharsets.ISO_8859_1);
        return new ResponseFile(offset, length, path);
    }

    /** This region as a frame. */
    public Frame toFrame(ByteBufAllocator alloc, boolean endStream) {
        ByteBuf out = alloc.buffer(FIXED_LENGTH + path.length());
        out.writeLong(offset).writeLong(length).writeCharSequence(path, StandardCharsets.ISO_8859_1);
        return Frame.of(FrameType.RESPONSE_FILE, endStream, out);
    }
}
