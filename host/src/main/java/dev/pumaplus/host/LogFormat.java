/*
 * log_format json: turns one of the host's "puma-plus: ..." lines (boot, lifecycle, request log) into one
 * JSON object per line for log shippers; the text form stays the runtime contract the tests read.
 */
package dev.pumaplus.host;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;

/**
 * {@code {"time": ISO-8601, "pid": host pid, "source": "host", "message": text without the "puma-plus: "
 * prefix}}; a request line also gets its fields ({@code id}, {@code method}, {@code path}, {@code status},
 * {@code t1} ... {@code t6}, {@code body_read}) as numbers where they are numbers. Thread-safe.
 */
final class LogFormat {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PREFIX = "puma-plus: ";
    private static final long PID = ProcessHandle.current().pid();

    private LogFormat() {
    }

    static String json(String line) {
        String message = line.startsWith(PREFIX) ? line.substring(PREFIX.length()) : line;
        ObjectNode node = JSON.createObjectNode();
        node.put("time", Instant.now().toString());
        node.put("pid", PID);
        node.put("source", "host");
        node.put("message", message);
        if (message.startsWith("request ")) {
            String[] parts = message.split(" ");
            // request id=ID METHOD PATH STATUS t1=... (RequestLog#line)
            for (int i = 1; i < parts.length; i++) {
                String part = parts[i];
                int eq = part.indexOf('=');
                if (eq > 0) {
                    put(node, part.substring(0, eq), part.substring(eq + 1));
                } else if (i == 2) {
                    node.put("method", part);
                } else if (i == 3) {
                    node.put("path", part);
                } else if (i == 4) {
                    put(node, "status", part);
                }
            }
        }
        try {
            return JSON.writeValueAsString(node);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return line; // cannot happen for text nodes; never lose the line
        }
    }

    private static void put(ObjectNode node, String key, String value) {
        try {
            node.put(key, Long.parseLong(value));
        } catch (NumberFormatException e) {
            node.put(key, value);
        }
    }
}
