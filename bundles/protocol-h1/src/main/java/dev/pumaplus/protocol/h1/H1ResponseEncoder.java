/*
 * The bytes of an HTTP/1.1 response (respond step): status line, header fields, the body framing chosen for
 * them, chunk framing, 1xx interim responses, the head of a partial hijack and the connection's own error
 * answers. Pure: PendingResponse decides when and in which order these bytes go out.
 */
package dev.pumaplus.protocol.h1;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * Static functions that append to a buffer the caller owns (typically one pooled buffer per head), so a
 * response head costs one buffer and no intermediate strings. Thread-safe (no state).
 *
 * <p>Header fields come as the host passes them: only names that are tokens and values without CR, LF or
 * NUL, so an app can never split a response (the host drops the rest as it decodes the app's head). The
 * fields that belong to the connection
 * ({@code Connection}, {@code Keep-Alive}, {@code Proxy-Connection}, {@code Transfer-Encoding}) are the
 * encoder's to write, never the app's; an app's {@code Connection: close} is honoured.
 */
final class H1ResponseEncoder {

    /** A good first capacity for a buffer that takes a head (it grows when the head is larger). */
    static final int HEAD_BYTES = 256;
    /** Room for the largest chunk header: 16 hex digits and CRLF. */
    static final int CHUNK_HEADER_BYTES = 18;

    private static final byte[] HTTP_1_0 = "HTTP/1.0 ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HTTP_1_1 = "HTTP/1.1 ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final short CRLF = ('\r' << 8) | '\n';
    private static final short COLON_SPACE = (':' << 8) | ' ';

    /**
     * How the body after an encoded head is delimited, and whether the connection ends with the response.
     *
     * @param body    whether the response has body bytes at all (false for HEAD, 1xx, 204 and 304: any the
     *                app sends are dropped)
     * @param length  the Content-Length that delimits the body, or -1 (chunked, delimited by the close, or
     *                no body)
     * @param chunked whether the body goes as chunks, ended by {@link #lastChunk}
     * @param closes  whether the head said {@code Connection: close}: the connection ends after this response
     *                (for HTTP/1.0 without a length the close is what delimits the body)
     */
    record Framing(boolean body, long length, boolean chunked, boolean closes) {
    }

    private H1ResponseEncoder() {
    }

    /**
     * A response head as the app gave it, framed: the app's Content-Length (the first valid one) if it gave
     * one, {@code Content-Length: 0} for a head that ends the response, chunked otherwise, and on HTTP/1.0,
     * which has no chunks, a body delimited by the close. Ends with the blank line.
     *
     * @param endOfStream whether no body follows the head
     * @param close       whether the connection ends after this response for reasons of its own (the request
     *                    asked to, the listener is draining); the app's {@code Connection: close} adds to it
     * @return the framing {@code out} announced
     */
    static Framing head(ByteBuf out, int status, List<Map.Entry<String, String>> headers, boolean http10,
            boolean headRequest, boolean endOfStream, boolean close) {
        boolean body = !headRequest && status >= 200 && status != 204 && status != 304;
        boolean lengthForbidden = status < 200 || status == 204;
        long appLength = -1;
        statusLine(out, http10, HttpResponseStatus.valueOf(status));
        for (Map.Entry<String, String> header : headers) {
            String name = header.getKey();
            String value = header.getValue();
            if (name.equalsIgnoreCase("connection")) {
                close |= hasToken(value, "close");
                continue;
            }
            if (name.equalsIgnoreCase("keep-alive") || name.equalsIgnoreCase("transfer-encoding")
                    || name.equalsIgnoreCase("proxy-connection")) {
                continue;
            }
            if (name.equalsIgnoreCase("content-length")) {
                long length = lengthForbidden || appLength >= 0 ? -1 : length(value);
                if (length < 0) {
                    continue;
                }
                appLength = length;
            }
            field(out, name, value);
        }
        long length = -1;
        boolean chunked = false;
        if (body) {
            if (appLength >= 0) {
                length = appLength;
            } else if (endOfStream) {
                field(out, "Content-Length", "0");
                length = 0;
            } else if (!http10) {
                field(out, "Transfer-Encoding", "chunked");
                chunked = true;
            } else {
                close = true;
            }
        }
        if (close) {
            field(out, "Connection", "close");
        } else if (http10) {
            field(out, "Connection", "keep-alive");
        }
        out.writeShort(CRLF);
        return new Framing(body, length, chunked, close);
    }

    /**
     * A head exactly as given, without framing: a 1xx interim response ({@code 100 Continue},
     * {@code 103 Early Hints}, always HTTP/1.1 since 1.0 has none), or the head of a partial hijack, whose
     * body is whatever the app writes until it closes. Ends with the blank line.
     */
    static void unframedHead(ByteBuf out, boolean http10, int status, List<Map.Entry<String, String>> headers) {
        statusLine(out, http10, HttpResponseStatus.valueOf(status));
        for (Map.Entry<String, String> header : headers) {
            field(out, header.getKey(), header.getValue());
        }
        out.writeShort(CRLF);
    }

    /**
     * A whole response the connection gives itself (a request it refuses, the host's failure before any
     * head): {@code status} with its reason phrase as a short text body (none for HEAD, as always), and
     * {@code Connection: close}.
     */
    static void error(ByteBuf out, boolean http10, boolean headRequest, int status) {
        HttpResponseStatus s = HttpResponseStatus.valueOf(status);
        statusLine(out, http10, s);
        field(out, "Content-Type", "text/plain");
        field(out, "Connection", "close");
        if (!headRequest) {
            // the body is "<code> <reason>\n"
            int length = s.codeAsText().length() + 1 + s.reasonPhrase().length() + 1;
            field(out, "Content-Length", Integer.toString(length));
        }
        out.writeShort(CRLF);
        if (!headRequest) {
            ByteBufUtil.copy(s.codeAsText(), out);
            out.writeByte(' ');
            out.writeCharSequence(s.reasonPhrase(), StandardCharsets.ISO_8859_1);
            out.writeByte('\n');
        }
    }

    /** The line in front of a chunk of {@code size} (> 0) bytes: the size in hex and CRLF. */
    static void chunkHeader(ByteBuf out, long size) {
        int digits = Math.max(1, (67 - Long.numberOfLeadingZeros(size)) / 4);
        for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) {
            out.writeByte(HEX[(int) (size >>> shift) & 0xf]);
        }
        out.writeShort(CRLF);
    }

    /** The CRLF behind a chunk's data. */
    static void chunkEnd(ByteBuf out) {
        out.writeShort(CRLF);
    }

    /** The last chunk (no trailers): ends a chunked body. */
    static void lastChunk(ByteBuf out) {
        out.writeByte('0');
        out.writeShort(CRLF);
        out.writeShort(CRLF);
    }

    /** The status line: version, code and reason phrase (Netty's, constants for the known codes). */
    private static void statusLine(ByteBuf out, boolean http10, HttpResponseStatus status) {
        out.writeBytes(http10 ? HTTP_1_0 : HTTP_1_1);
        ByteBufUtil.copy(status.codeAsText(), out);
        out.writeByte(' ');
        out.writeCharSequence(status.reasonPhrase(), StandardCharsets.ISO_8859_1);
        out.writeShort(CRLF);
    }

    private static void field(ByteBuf out, String name, String value) {
        out.writeCharSequence(name, StandardCharsets.ISO_8859_1);
        out.writeShort(COLON_SPACE);
        out.writeCharSequence(value, StandardCharsets.ISO_8859_1);
        out.writeShort(CRLF);
    }

    /** A Content-Length value: its digits (surrounding blanks allowed), or -1 when it is not one. */
    private static long length(String value) {
        try {
            long length = Long.parseLong(value.trim());
            return length < 0 ? -1 : length;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Whether the comma-separated {@code value} lists {@code token} (case-insensitive, blanks allowed). */
    private static boolean hasToken(String value, String token) {
        int start = 0;
        while (start <= value.length()) {
            int comma = value.indexOf(',', start);
            int end = comma < 0 ? value.length() : comma;
            int from = start;
            int to = end;
            while (from < to && value.charAt(from) <= ' ') {
                from++;
            }
            while (to > from && value.charAt(to - 1) <= ' ') {
                to--;
            }
            if (to - from == token.length() && value.regionMatches(true, from, token, 0, token.length())) {
                return true;
            }
            start = end + 1;
        }
        return false;
    }
}
