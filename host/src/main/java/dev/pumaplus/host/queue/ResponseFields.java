/*
 * Which of the response header fields an app hands back may reach a client at all (respond step): the worker
 * link drops every other field of a response head, an early hints head and a hijack head once it has decoded them,
 * so no protocol ever gets a field that could split a response.
 */
package dev.pumaplus.host.queue;

import java.util.List;
import java.util.Map;

/** Pure functions; thread-safe. */
final class ResponseFields {

    private ResponseFields() {
    }

    /**
     * Removes from {@code fields} (a list the link decoded: mutable, the link's own) every field whose name is
     * not a token or whose value is not a field value, in place, and returns it. A head whose fields are all
     * safe, the usual one, costs a scan and no allocation.
     */
    static List<Map.Entry<String, String>> clientSafe(List<Map.Entry<String, String>> fields) {
        fields.removeIf(field -> !isToken(field.getKey()) || !isFieldValue(field.getValue()));
        return fields;
    }

    /** An RFC 9110 token: the characters a field name may have (non-empty). */
    static boolean isToken(String s) {
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
    static boolean isFieldValue(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\r' || c == '\n' || c == 0 || c > 0xFF) {
                return false;
            }
        }
        return true;
    }
}
