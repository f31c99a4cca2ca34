/*
 * A set of ASCII characters as a lookup table: the character classes of the HTTP and URI grammars (tchar,
 * the request target's characters, reg-name, HEXDIG) that the parse step checks request bytes against.
 */
package dev.pumaplus.protocol.h1;

/** Immutable, thread-safe. A byte read as signed (above 0x7F is negative) is in no set. */
final class AsciiSet {

    /** RFC 5234 DIGIT. */
    static final String DIGIT = "0123456789";
    /** RFC 5234 ALPHA. */
    static final String ALPHA = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

    private final boolean[] members = new boolean[128];

    /** The set of the characters in {@code chars}, each below 128. */
    AsciiSet(String chars) {
        for (int i = 0; i < chars.length(); i++) {
            members[chars.charAt(i)] = true;
        }
    }

    /** Whether {@code c} (a char, or a byte read as signed: above 0x7F is negative) is in this set. */
    boolean contains(int c) {
        return c >= 0 && c < 128 && members[c];
    }

    static boolean isDigit(int c) {
        return c >= '0' && c <= '9';
    }
}
