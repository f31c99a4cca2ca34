/*
 * The payload of the HTTP/3 DATA frames on a WebTransport session's CONNECT stream as one byte stream (parse
 * step), which the capsule reader reads: capsules may span DATA frames, and other frame types are skipped.
 */
package dev.pumaplus.protocol.h3;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * <pre>
 * HTTP/3 Frame { Type (i), Length (i), Frame Payload (..) }     DATA: type 0x00
 * </pre>
 * RFC 9114 §9: frames of unknown type are skipped (so are trailing HEADERS). Not thread-safe: one reader.
 */
final class DataFrameInputStream extends InputStream {

    private static final long DATA = 0x00;

    private final InputStream frames;
    /** Payload bytes of the current DATA frame not yet read. */
    private long left;

    DataFrameInputStream(InputStream frames) {
        this.frames = frames;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] into, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        while (left == 0) {
            long type = QuicVarint.read(frames);
            if (type < 0) {
                return -1;
            }
            long length = QuicVarint.read(frames);
            if (length < 0) {
                throw new EOFException("stream ended inside a frame header");
            }
            if (type == DATA) {
                left = length;
            } else {
                skipFrame(length);
            }
        }
        int n = frames.read(into, off, (int) Math.min(len, left));
        if (n < 0) {
            throw new EOFException("stream ended inside a DATA frame");
        }
        left -= n;
        return n;
    }

    private void skipFrame(long length) throws IOException {
        long remaining = length;
        while (remaining > 0) {
            long n = frames.skip(remaining);
            if (n <= 0) {
                if (frames.read() < 0) {
                    throw new EOFException("stream ended inside a frame");
                }
                n = 1;
            }
            remaining -= n;
        }
    }
}
