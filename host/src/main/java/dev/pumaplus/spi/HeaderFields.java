/*
 * The rules every protocol applies to the response header fields an app hands back (respond step): which
 * names and values may reach a client at all, and which fields belong to an HTTP/1.1 connection and so
 * must not travel on an h2 or h3 stream.
 */
package dev.pumaplus.spi;

import java.util.Set;

/** Pure functions; thread-safe. */
public final class HeaderFields {

    private static final Set<String> CONNECTION_SPECIFIC =
            Set.of("connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade");

    private HeaderFields() {
    }

    /** An RFC 9110 token: the characters a field name may have (non-empty). */
    public static boolean isToken(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** A field value without CR, LF or NUL (response splitting) and one byte per char (ISO-8859-1). */
    public static boolean isFieldValue(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\r' || c == '\n' || c == 0 || c > 0xFF) {
                return false;
            }
        }
        return true;
    }

    /** A field HTTP/2 and HTTP/3 forbid (RFC 9113 8.2.2, RFC 9114 4.2); {@code lowerCaseName} in lower case. */
    public static boolean isConnectionSpecific(String lowerCaseName) {
        return CONNECTION_SPECIFIC.contains(lowerCaseName);
    }
}
