/*
 * The RESPONSE_FILE payload: a region of a file that a worker's response body consists of (a Rack body
 * answering to_path); the host sends it to the client itself instead of the worker copying it through Ruby.
 */
package dev.pumaplus.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;

/**
 * {@code u64 offset, u64 length}, then the file's absolute path: printable ASCII (0x20–0x7E) starting with
 * {@code /}, so the host's file-name encoding cannot matter. Offset and length are below 2^63.
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
     * @throws ProtocolException when it has no path, offset or length is 2^63 or more, or the path is not an
     *                           absolute printable ASCII one
     */
    public static ResponseFile decode(ByteBuf payload) {
        PayloadLength.atLeast(payload, FIXED_LENGTH + 1);
        int i = payload.readerIndex();
        long offset = payload.getLong(i);
        long length = payload.getLong(i + 8);
        if (offset < 0 || length < 0) {
            throw new ProtocolException("offset or length of 2^63 or more");
        }
        String path = payload.toString(i + FIXED_LENGTH, payload.readableBytes() - FIXED_LENGTH,
                StandardCharsets.ISO_8859_1);
        if (path.charAt(0) != '/' || !path.chars().allMatch(c -> c >= 0x20 && c <= 0x7E)) {
            throw new ProtocolException("the path is not an absolute printable ASCII path");
        }
        return new ResponseFile(offset, length, path);
    }

    /** This region as a frame. */
    public Frame toFrame(ByteBufAllocator alloc, boolean endStream) {
        ByteBuf out = alloc.buffer(FIXED_LENGTH + path.length());
        out.writeLong(offset).writeLong(length).writeCharSequence(path, StandardCharsets.ISO_8859_1);
        return Frame.of(FrameType.RESPONSE_FILE, endStream, out);
    }
}
