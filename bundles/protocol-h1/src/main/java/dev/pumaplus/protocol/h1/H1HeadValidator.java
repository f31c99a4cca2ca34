/*
 * Checks one HTTP/1.x request head against RFC 9112, line by line as its bytes arrive, before Netty's decoder
 * parses it (the parse step of accept → parse → queue → ...): a head that passes is one every strict parser
 * reads the same way, so Netty's more lenient parsing never decides anything about framing.
 */
package dev.pumaplus.protocol.h1;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.FastThreadLocal;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The rules, each answered with the status in brackets (docs/SECURITY.md lists them with their reasons):
 * <ul>
 *   <li>Lines end in CRLF: a bare LF anywhere, or a bare CR, is refused [400] (RFC 9112 §2.2). Empty lines
 *       before the request line are ignored (§2.2), counted in the request-line limit.</li>
 *   <li>Request line: {@code method SP request-target SP HTTP-version}, exactly one SP each (§3); the method
 *       a token (§3.1) [400]; the version {@code HTTP/DIGIT.DIGIT} [400], 1.0 or 1.1 [505] (§2.3); the
 *       whole line at most {@link H1Limits#MAX_REQUEST_LINE_BYTES}, the target at most
 *       {@link H1Limits#MAX_TARGET_BYTES} [414] (§3).</li>
 *   <li>Request target (§3.2): origin-form, absolute-form with an {@code http} or {@code https} authority
 *       without userinfo (RFC 9110 §4.2.4) and with a host (RFC 9110 §4.2.1), or {@code *} for OPTIONS;
 *       authority-form (a proxy's CONNECT) and other schemes are refused [400]. Its bytes are RFC 3986's URI
 *       characters plus the printable ASCII that browsers send unencoded under the WHATWG URL standard
 *       ({@code { } | \ ^ `} {@code [ ]} and a {@code %} that starts no escape); CTLs, SP, DEL,
 *       {@code " # < >} and bytes above 0x7F are refused [400], so they never reach PATH_INFO.</li>
 *   <li>Field lines (§5): a token name directly followed by {@code :} (no whitespace before the colon,
 *       §5.1); a value of visible characters, obs-text, SP and HTAB only (§5.5); no line starting with
 *       whitespace, which is obs-fold (§5.2) or whitespace before the first field (§2.2) [400]. The field
 *       lines together at most {@link H1Limits#MAX_HEADER_BYTES} [431].</li>
 *   <li>Framing (§6), on HTTP/1.0 exactly as on 1.1: at most one Content-Length value in all (a second
 *       field or a list, equal or not, RFC 9110 §8.6), each 1*DIGIT within a signed 64-bit long [400];
 *       Transfer-Encoding on HTTP/1.0 (§6.1) or beside Content-Length (§6.3) [400]; a Transfer-Encoding
 *       whose final coding is not chunked (§6.3), or that names chunked twice (§7) [400]; any coding but
 *       chunked, which the server does not decode (§6.1) [501].</li>
 *   <li>Host (§3.2): exactly one Host field on HTTP/1.1, at most one on 1.0, its value a valid
 *       {@code uri-host [":" port]} (RFC 3986 §3.2.2, port at most 65535) [400]. The authority the request
 *       names is the absolute-form target's if there is one, else the Host value (§3.2.2).</li>
 * </ul>
 *
 * <p>Each complete line is checked once, as it arrives, so a head that trickles in costs no rescans; the
 * limits are checked on partial lines too, so a line that never ends is refused as soon as it is too long.
 * One instance per connection, reused for each request after {@link #reset()}; event loop only.
 */
final class H1HeadValidator {

    /** tchar, RFC 9110 §5.6.2. */
    private static final AsciiSet TCHAR = new AsciiSet(AsciiSet.ALPHA + AsciiSet.DIGIT + "!#$%&'*+-.^_`|~");
    /** RFC 3986 pchar, "/", "?", plus what WHATWG URL serialisers leave unencoded (see the class comment). */
    private static final AsciiSet TARGET = new AsciiSet(
            AuthoritySyntax.UNRESERVED + AuthoritySyntax.SUB_DELIMS + ":@/?%" + "{}|\\^`[]");
    /** One line buffer per event loop thread, for the lines that fit it (nearly all). */
    private static final FastThreadLocal<byte[]> SCRATCH = new FastThreadLocal<>() {
        @Override
        protected byte[] initialValue() {
            return new byte[8 * 1024];
        }
    };
    /** Longest Content-Length that always fits a long (19 digits can overflow). */
    private static final int MAX_LENGTH_DIGITS = 18;

    // Progress through the current head.
    /** Bytes after the reader index already checked; always whole lines. */
    private int scanned;
    /** Bytes after the reader index already searched for an LF (past {@link #scanned}: a partial line). */
    private int searched;
    private boolean requestLineSeen;
    private int fieldBytes;
    /** This head is a cleartext connection's first and HTTP/2 is served there: it may be a broken preface. */
    private boolean mayBeH2Preface;
    /** Its request line named no HTTP version where it may be a broken preface: the next line decides how it is refused. */
    private boolean versionless;

    // What its lines said.
    private boolean http10;
    private String targetAuthority;
    private int hostFields;
    private String host;
    private int contentLengths;
    private boolean transferEncoding;
    private int codings;
    private int chunkedCodings;
    private String lastCoding;

    /**
     * @param h2cListener the connection is cleartext with protocol-h2 loaded, where a client may open with
     *                    the HTTP/2 preface (RFC 9113 §3.3)
     */
    H1HeadValidator(boolean h2cListener) {
        mayBeH2Preface = h2cListener;
    }

    /**
     * Checks the lines of {@code in} (from its reader index; nothing is read or consumed) that arrived since
     * the last call.
     *
     * @return true once the empty line ending the head is checked: the head is valid, and its
     *         {@link #authority()} known; false while more bytes are needed
     * @throws RejectedRequestException when the head breaks a rule
     */
    boolean check(ByteBuf in) {
        int start = in.readerIndex();
        int end = in.writerIndex();
        while (true) {
            int lineStart = start + scanned;
            int lf = in.indexOf(start + Math.max(scanned, searched), end, (byte) '\n');
            if (lf < 0) {
                checkPartial(end - lineStart);
                searched = end - start; // a line trickling in is searched once, not once per read
                return false;
            }
            if (lf == lineStart || in.getByte(lf - 1) != '\r') {
                throw new RejectedRequestException(400, "bare LF as a line terminator (RFC 9112 §2.2)");
            }
            int length = lf - 1 - lineStart;
            scanned = lf + 1 - start;
            if (!requestLineSeen) {
                if (scanned - 2 > H1Limits.MAX_REQUEST_LINE_BYTES) {
                    throw new RejectedRequestException(414, "request line too long (RFC 9112 §3)");
                }
                if (length > 0) {
                    requestLine(bytes(in, lineStart, length), 0, length);
                    requestLineSeen = true;
                }
                // else: an empty line before the request line, ignored (§2.2)
            } else if (versionless) {
                throw afterVersionless(length);
            } else if (length == 0) {
                endOfHead();
                return true;
            } else {
                fieldBytes += length;
                if (fieldBytes > H1Limits.MAX_HEADER_BYTES) {
                    throw new RejectedRequestException(431, "header section too large (RFC 6585 §5)");
                }
                fieldLine(bytes(in, lineStart, length), 0, length);
            }
        }
    }

    /**
     * The authority the request names (RFC 9112 §3.2.2): the absolute-form target's, else the Host value;
     * null for an HTTP/1.0 request with neither. Valid after {@link #check} returned true.
     */
    String authority() {
        return targetAuthority != null ? targetAuthority : host;
    }

    /** Forgets the head just checked, whose bytes the caller has handed to the parser. */
    void reset() {
        scanned = 0;
        searched = 0;
        requestLineSeen = false;
        fieldBytes = 0;
        mayBeH2Preface = false;
        versionless = false;
        http10 = false;
        targetAuthority = null;
        hostFields = 0;
        host = null;
        contentLengths = 0;
        transferEncoding = false;
        codings = 0;
        chunkedCodings = 0;
        lastCoding = null;
    }

    /**
     * The {@code length} bytes at {@code from}, in the event loop's scratch array when they fit (one bounds
     * check for the line instead of one per byte, and no allocation), else in a new one.
     */
    private static byte[] bytes(ByteBuf in, int from, int length) {
        byte[] scratch = SCRATCH.get();
        byte[] line = length <= scratch.length ? scratch : new byte[length];
        in.getBytes(from, line, 0, length);
        return line;
    }

    /** A line without its LF yet: refused once it cannot fit its limit any more (a CR may still end it). */
    private void checkPartial(int pending) {
        if (!requestLineSeen) {
            if (scanned + pending > H1Limits.MAX_REQUEST_LINE_BYTES + 1) {
                throw new RejectedRequestException(414, "request line too long (RFC 9112 §3)");
            }
        } else if (fieldBytes + pending > H1Limits.MAX_HEADER_BYTES + 1) {
            throw new RejectedRequestException(431, "header section too large (RFC 6585 §5)");
        }
    }

    // The line checks read a copy of the line's bytes: a String only for the few values kept.

    private void requestLine(byte[] b, int from, int end) {
        int sp1 = from;
        while (sp1 < end && b[sp1] != ' ') {
            if (!TCHAR.contains(b[sp1])) {
                throw new RejectedRequestException(400, "method is not a token (RFC 9112 §3.1)");
            }
            sp1++;
        }
        int sp2 = end - 1;
        while (sp2 > sp1 && b[sp2] != ' ') {
            sp2--;
        }
        if (sp1 == from || sp2 <= sp1 + 1) {
            throw new RejectedRequestException(400,
                    "request line is not method SP request-target SP HTTP-version (RFC 9112 §3)");
        }
        if (mayBeH2Preface && !namesHttp(b, from, end)) {
            versionless = true; // not HTTP/1.x, and maybe a broken HTTP/2 preface: see afterVersionless
            return;
        }
        version(b, sp2 + 1, end);
        target(b, from, sp1, sp1 + 1, sp2);
    }

    /**
     * Refuses a head whose request line named no HTTP version on a connection that may be HTTP/2's, at its
     * next line: a head of that line alone (h2spec's {@code INVALID CONNECTION PREFACE\r\n\r\n}) is
     * neither HTTP/1.x (RFC 9112 §3 makes the 400 a SHOULD) nor HTTP/2 (RFC 9113 §3.4 asks for a connection
     * error whose GOAWAY may be omitted, and an HTTP/2 client reads a 400 as a broken frame), so it is closed
     * unanswered; one with field lines is an HTTP/1.x request, answered 400.
     */
    private static RejectedRequestException afterVersionless(int nextLineLength) {
        return nextLineLength == 0
                ? new RejectedRequestException(RejectedRequestException.UNANSWERED,
                        "a first line naming no HTTP version, alone: neither HTTP/1.x nor the HTTP/2 preface")
                : new RejectedRequestException(400, "HTTP-version is not HTTP/DIGIT.DIGIT (RFC 9112 §2.3)");
    }

    private void version(byte[] b, int from, int end) {
        if (end - from != 8 || b[from] != 'H' || b[from + 1] != 'T' || b[from + 2] != 'T'
                || b[from + 3] != 'P' || b[from + 4] != '/' || b[from + 6] != '.'
                || !AsciiSet.isDigit(b[from + 5]) || !AsciiSet.isDigit(b[from + 7])) {
            throw new RejectedRequestException(400, "HTTP-version is not HTTP/DIGIT.DIGIT (RFC 9112 §2.3)");
        }
        byte minor = b[from + 7];
        if (b[from + 5] != '1' || minor > '1') {
            throw new RejectedRequestException(505, "HTTP version other than 1.0 and 1.1 (RFC 9110 §15.6.6)");
        }
        http10 = minor == '0';
    }

    /** Whether {@code HTTP}, in any case, occurs in the bytes from {@code from} to {@code end}. */
    private static boolean namesHttp(byte[] b, int from, int end) {
        for (int i = from; i + 4 <= end; i++) {
            if ((b[i] | 0x20) == 'h' && (b[i + 1] | 0x20) == 't' && (b[i + 2] | 0x20) == 't'
                    && (b[i + 3] | 0x20) == 'p') {
                return true;
            }
        }
        return false;
    }

    private void target(byte[] b, int methodStart, int methodEnd, int from, int end) {
        if (end - from > H1Limits.MAX_TARGET_BYTES) {
            throw new RejectedRequestException(414, "request target too long (RFC 9112 §3)");
        }
        if (b[from] == '/') {
            targetCharacters(b, from, end); // origin-form
            return;
        }
        if (end - from == 1 && b[from] == '*') {
            if (!new String(b, methodStart, methodEnd - methodStart, StandardCharsets.ISO_8859_1).equals("OPTIONS")) {
                throw new RejectedRequestException(400, "asterisk-form is only for OPTIONS (RFC 9112 §3.2.4)");
            }
            return;
        }
        String target = new String(b, from, end - from, StandardCharsets.ISO_8859_1);
        int colon = target.indexOf(':');
        String scheme = colon < 0 ? "" : target.substring(0, colon);
        if (!(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
                || !target.startsWith("//", colon + 1)) {
            throw new RejectedRequestException(400,
                    "target is neither origin-form nor an http(s) absolute-form (RFC 9112 §3.2)");
        }
        int authorityStart = colon + 3;
        int authorityEnd = authorityStart;
        while (authorityEnd < target.length() && target.charAt(authorityEnd) != '/'
                && target.charAt(authorityEnd) != '?') {
            authorityEnd++;
        }
        String authority = target.substring(authorityStart, authorityEnd);
        if (authority.indexOf('@') >= 0) {
            throw new RejectedRequestException(400, "userinfo in the target's authority (RFC 9110 §4.2.4)");
        }
        if (authority.isEmpty() || !AuthoritySyntax.valid(authority)) {
            throw new RejectedRequestException(400,
                    "the target's authority is not uri-host [\":\" port] with a host (RFC 9110 §4.2.1)");
        }
        targetCharacters(b, from + authorityEnd, end);
        targetAuthority = authority;
    }

    private static void targetCharacters(byte[] b, int from, int end) {
        for (int i = from; i < end; i++) {
            if (!TARGET.contains(b[i])) {
                throw new RejectedRequestException(400,
                        "byte 0x" + Integer.toHexString(b[i] & 0xFF) + " in the request target (RFC 9112 §3.2)");
            }
        }
    }

    private void fieldLine(byte[] b, int from, int end) {
        byte first = b[from];
        if (first == ' ' || first == '\t') {
            throw new RejectedRequestException(400,
                    "line starting with whitespace: obs-fold or before the first field (RFC 9112 §5.2, §2.2)");
        }
        int colon = from;
        while (colon < end && b[colon] != ':') {
            if (!TCHAR.contains(b[colon])) {
                throw new RejectedRequestException(400,
                        "field name is not a token, or whitespace before the colon (RFC 9112 §5.1)");
            }
            colon++;
        }
        if (colon == end) {
            throw new RejectedRequestException(400, "field line without a colon (RFC 9112 §5)");
        }
        for (int i = colon + 1; i < end; i++) {
            byte c = b[i];
            if ((c >= 0 && c < 0x20 && c != '\t') || c == 0x7F) {
                throw new RejectedRequestException(400, "control byte 0x" + Integer.toHexString(c)
                        + " in a field value (RFC 9110 §5.5, RFC 9112 §2.2)");
            }
        }
        if (nameIs(b, from, colon, "host")) {
            hostFields++;
            host = value(b, colon + 1, end);
        } else if (nameIs(b, from, colon, "content-length")) {
            contentLength(value(b, colon + 1, end));
        } else if (nameIs(b, from, colon, "transfer-encoding")) {
            transferCodings(value(b, colon + 1, end));
        }
    }

    /** Whether the token bytes {@code [from, end)} are {@code lowerName}, ignoring ASCII case. */
    private static boolean nameIs(byte[] b, int from, int end, String lowerName) {
        if (end - from != lowerName.length()) {
            return false;
        }
        for (int i = 0; i < lowerName.length(); i++) {
            byte c = b[from + i];
            if ((c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c) != lowerName.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** The field value in {@code [from, end)} without its surrounding OWS. */
    private static String value(byte[] b, int from, int end) {
        return trimOws(new String(b, from, end - from, StandardCharsets.ISO_8859_1), 0, end - from);
    }

    private void contentLength(String value) {
        for (String element : value.split(",", -1)) {
            String digits = trimOws(element, 0, element.length());
            if (digits.isEmpty() || digits.length() > MAX_LENGTH_DIGITS || !digits.chars().allMatch(AsciiSet::isDigit)) {
                throw new RejectedRequestException(400,
                        "Content-Length is not 1*DIGIT within 64 bits (RFC 9112 §6.3, RFC 9110 §8.6)");
            }
            if (++contentLengths > 1) {
                throw new RejectedRequestException(400,
                        "more than one Content-Length value (RFC 9112 §6.3, RFC 9110 §8.6)");
            }
        }
    }

    private void transferCodings(String value) {
        transferEncoding = true;
        for (String element : value.split(",", -1)) {
            int semicolon = element.indexOf(';');
            String coding = trimOws(element, 0, semicolon < 0 ? element.length() : semicolon)
                    .toLowerCase(Locale.ROOT);
            if (coding.isEmpty()) {
                continue; // an empty list element (RFC 9110 §5.6.1)
            }
            codings++;
            if (coding.equals("chunked")) {
                chunkedCodings++;
            }
            lastCoding = coding;
        }
    }

    private void endOfHead() {
        if (transferEncoding) {
            if (http10) {
                throw new RejectedRequestException(400, "Transfer-Encoding on HTTP/1.0 (RFC 9112 §6.1)");
            }
            if (contentLengths > 0) {
                throw new RejectedRequestException(400,
                        "both Transfer-Encoding and Content-Length (RFC 9112 §6.1, §6.3)");
            }
            if (!"chunked".equals(lastCoding)) {
                throw new RejectedRequestException(400,
                        "Transfer-Encoding whose final coding is not chunked (RFC 9112 §6.3)");
            }
            if (chunkedCodings > 1) {
                throw new RejectedRequestException(400, "chunked applied more than once (RFC 9112 §7)");
            }
            if (codings > 1) {
                throw new RejectedRequestException(501,
                        "a transfer coding the server does not decode (RFC 9112 §6.1)");
            }
        }
        if (hostFields > 1) {
            throw new RejectedRequestException(400, "more than one Host field (RFC 9112 §3.2)");
        }
        if (hostFields == 0 && !http10) {
            throw new RejectedRequestException(400, "HTTP/1.1 request without Host (RFC 9112 §3.2)");
        }
        if (host != null && !AuthoritySyntax.valid(host)) {
            throw new RejectedRequestException(400, "Host is not uri-host [\":\" port] (RFC 9112 §3.2)");
        }
    }

    private static String trimOws(String s, int from, int to) {
        while (from < to && (s.charAt(from) == ' ' || s.charAt(from) == '\t')) {
            from++;
        }
        while (to > from && (s.charAt(to - 1) == ' ' || s.charAt(to - 1) == '\t')) {
            to--;
        }
        return s.substring(from, to);
    }
}
