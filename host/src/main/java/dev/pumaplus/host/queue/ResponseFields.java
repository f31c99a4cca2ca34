/*
 * Which of the response header fields an app hands back may reach a client at all (respond step): the worker
 * link drops every other field of a response head, an early hints head and a hijack head as it decodes them,
 * so no protocol ever gets a field that could split a response.
 */
package dev.pumaplus.host.queue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Pure functions; thread-safe. */
final class ResponseFields {

    private ResponseFields() {
    }

    /**
     * The fields of {@code fields} whose name is a token and whose value is a field value, in order, as a new
     * mutable list.
     */
    static List<Map.Entry<String, String>> clientSafe(List<Map.Entry<String, String>> fields) {
        List<Map.Entry<String, String>> safe = new ArrayList<>(fields.size() + 1);
        for (Map.Entry<String, String> field : fields) {
            if (isToken(field.getKey()) && isFieldValue(field.getValue())) {
                safe.add(field);
            }
        }
        return safe;
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
