/*
 * The syntax of an HTTP authority, {@code uri-host [":" port]} (RFC 3986 §3.2.2, §3.2.3), for the parse step:
 * H1HeadValidator holds an absolute-form target's authority and every Host value to it.
 */
package dev.pumaplus.protocol.h1;

/**
 * Pure functions over strings; thread-safe. A reg-name may hold percent-escapes; an IP literal is an
 * IPv6address (with an embedded IPv4address) or an IPvFuture.
 */
final class AuthoritySyntax {

    /** RFC 3986 §2.3 unreserved characters. */
    static final String UNRESERVED = AsciiSet.ALPHA + AsciiSet.DIGIT + "-._~";
    /** RFC 3986 §2.2 sub-delims. */
    static final String SUB_DELIMS = "!$&'()*+,;=";
    private static final AsciiSet REG_NAME = new AsciiSet(UNRESERVED + SUB_DELIMS);
    private static final AsciiSet HEX = new AsciiSet(AsciiSet.DIGIT + "ABCDEFabcdef");

    private AuthoritySyntax() {
    }

    /**
     * {@code uri-host [":" port]} (RFC 3986 §3.2.2, §3.2.3), the port at most 65535. An empty value is valid
     * (an empty reg-name); a port without a host is not.
     */
    static boolean valid(String authority) {
        if (authority.isEmpty()) {
            return true;
        }
        int portStart;
        if (authority.charAt(0) == '[') {
            int close = authority.indexOf(']');
            if (close < 0 || !ipLiteral(authority.substring(1, close))) {
                return false;
            }
            if (close + 1 == authority.length()) {
                return true;
            }
            if (authority.charAt(close + 1) != ':') {
                return false;
            }
            portStart = close + 2;
        } else {
            // Checked in place, without substrings: every request's Host passes through here.
            int colon = authority.indexOf(':');
            int nameEnd = colon < 0 ? authority.length() : colon;
            if (nameEnd == 0 || !regName(authority, nameEnd)) {
                return false;
            }
            if (colon < 0) {
                return true;
            }
            portStart = colon + 1;
        }
        return validPort(authority, portStart);
    }

    /** {@code port = *DIGIT} from {@code from} to the end, at most 65535; empty is valid. */
    private static boolean validPort(String authority, int from) {
        if (authority.length() - from > 5) {
            return false;
        }
        int port = 0;
        for (int i = from; i < authority.length(); i++) {
            char c = authority.charAt(i);
            if (!AsciiSet.isDigit(c)) {
                return false;
            }
            port = port * 10 + (c - '0');
        }
        return port <= 65535;
    }

    /** Whether the first {@code end} chars of {@code name} are a reg-name (RFC 3986 §3.2.2). */
    private static boolean regName(String name, int end) {
        for (int i = 0; i < end; i++) {
            char c = name.charAt(i);
            if (c == '%') {
                if (i + 2 >= end || !HEX.contains(name.charAt(i + 1)) || !HEX.contains(name.charAt(i + 2))) {
                    return false;
                }
                i += 2;
            } else if (!REG_NAME.contains(c)) {
                return false;
            }
        }
        return true;
    }

    /** The inside of {@code [...]}: IPv6address or IPvFuture (RFC 3986 §3.2.2). */
    private static boolean ipLiteral(String inner) {
        if (!inner.isEmpty() && (inner.charAt(0) == 'v' || inner.charAt(0) == 'V')) {
            int dot = inner.indexOf('.');
            if (dot < 2 || dot == inner.length() - 1) {
                return false;
            }
            for (int i = 1; i < dot; i++) {
                if (!HEX.contains(inner.charAt(i))) {
                    return false;
                }
            }
            for (int i = dot + 1; i < inner.length(); i++) {
                char c = inner.charAt(i);
                if (!REG_NAME.contains(c) && c != ':') {
                    return false;
                }
            }
            return true;
        }
        int gap = inner.indexOf("::");
        if (gap < 0) {
            return pieces(inner, true) == 8;
        }
        if (inner.indexOf("::", gap + 1) >= 0) {
            return false;
        }
        int left = gap == 0 ? 0 : pieces(inner.substring(0, gap), false);
        int right = gap + 2 == inner.length() ? 0 : pieces(inner.substring(gap + 2), true);
        return left >= 0 && right >= 0 && left + right <= 7;
    }

    /** The 16-bit pieces of {@code h16 *(":" h16)}, the last one maybe an IPv4address; -1 if malformed. */
    private static int pieces(String groups, boolean mayEndInIpv4) {
        String[] parts = groups.split(":", -1);
        int count = 0;
        for (int i = 0; i < parts.length; i++) {
            String part = parts[i];
            if (i == parts.length - 1 && mayEndInIpv4 && part.indexOf('.') >= 0) {
                if (!ipv4(part)) {
                    return -1;
                }
                count += 2;
            } else if (part.isEmpty() || part.length() > 4 || !part.chars().allMatch(HEX::contains)) {
                return -1;
            } else {
                count++;
            }
        }
        return count;
    }

    private static boolean ipv4(String text) {
        String[] octets = text.split("\\.", -1);
        if (octets.length != 4) {
            return false;
        }
        for (String octet : octets) {
            if (octet.isEmpty() || octet.length() > 3 || (octet.length() > 1 && octet.charAt(0) == '0')
                    || !octet.chars().allMatch(AsciiSet::isDigit) || Integer.parseInt(octet) > 255) {
                return false;
            }
        }
        return true;
    }
}
