/*
 * The one formatter of the host's log (config `log_format`): every record the host, its bundles, Netty, Felix
 * and Kwik log becomes one "puma-plus: ..." text line (the runtime contract the tests read) or one JSON
 * object per line for log shippers. HostLogHandler prints what this returns.
 */
package dev.pumaplus.host.config;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pumaplus.host.queue.RequestLog;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.logging.Formatter;
import java.util.logging.Level;
import java.util.logging.LogRecord;

/**
 * Text: {@code puma-plus: MESSAGE} for the host's own loggers ({@code dev.pumaplus.*}), {@code puma-plus:
 * LOGGER LEVEL: MESSAGE} for a library's, followed by the stack trace of a thrown exception. A message
 * that already starts with {@code "puma-plus: "} keeps one prefix.
 *
 * <p>JSON: {@code {"time": ISO-8601, "pid": host pid, "source": "host", "level": "info"|"warning"|"error"|
 * "debug", "logger": name, "message": text without the prefix}}, plus {@code "error"} (the stack trace) when
 * a record carries an exception; a request line of {@link RequestLog} also gets its fields ({@code id},
 * {@code method}, {@code path}, {@code status}, {@code t1} ... {@code t6}, {@code body_read}) as numbers
 * where they are numbers. Either way each record ends with one newline and, in JSON, contains no other.
 * Thread-safe (stateless).
 */
public final class LogFormat extends Formatter {

    public static final LogFormat TEXT = new LogFormat(false);
    public static final LogFormat JSON = new LogFormat(true);

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String PREFIX = "puma-plus: ";
    private static final String HOST_LOGGERS = "dev.pumaplus.";
    private static final long PID = ProcessHandle.current().pid();

    private final boolean json;

    private LogFormat(boolean json) {
        this.json = json;
    }

    /** The format {@code log_format} names: {@code "json"}, else text. */
    static LogFormat named(String name) {
        return "json".equals(name) ? JSON : TEXT;
    }

    @Override
    public String format(LogRecord record) {
        String message = formatMessage(record);
        if (message == null) {
            message = "";
        } else if (message.startsWith(PREFIX)) {
            message = message.substring(PREFIX.length());
        }
        String logger = record.getLoggerName() == null ? "" : record.getLoggerName();
        String trace = record.getThrown() == null ? null : stackTrace(record.getThrown());
        return json ? json(record, logger, message, trace) : text(record, logger, message, trace);
    }

    private static String text(LogRecord record, String logger, String message, String trace) {
        StringBuilder line = new StringBuilder(PREFIX);
        if (!logger.startsWith(HOST_LOGGERS)) {
            line.append(logger).append(' ').append(record.getLevel().getName()).append(": ");
        }
        line.append(message).append('\n');
        if (trace != null) {
            line.append(trace);
        }
        return line.toString();
    }

    private static String json(LogRecord record, String logger, String message, String trace) {
        ObjectNode node = MAPPER.createObjectNode();
        node.put("time", record.getInstant().toString());
        node.put("pid", PID);
        node.put("source", "host");
        node.put("level", level(record.getLevel()));
        node.put("logger", logger);
        node.put("message", message);
        if (trace != null) {
            node.put("error", trace);
        }
        if (logger.equals(RequestLog.class.getName())) {
            requestFields(node, message);
        }
        return node.toString() + "\n";
    }

    /** System.Logger's names for java.util.logging's levels (ERROR is SEVERE, DEBUG is FINE, ...). */
    private static String level(Level level) {
        int value = level.intValue();
        if (value >= Level.SEVERE.intValue()) {
            return "error";
        }
        if (value >= Level.WARNING.intValue()) {
            return "warning";
        }
        return value >= Level.INFO.intValue() ? "info" : "debug";
    }

    /** {@code request id=ID METHOD PATH STATUS t1=... body_read=...} ({@link RequestLog#line}). */
    private static void requestFields(ObjectNode node, String message) {
        String[] parts = message.split(" ");
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

    private static void put(ObjectNode node, String key, String value) {
        try {
            node.put(key, Long.parseLong(value));
        } catch (NumberFormatException e) {
            node.put(key, value);
        }
    }

    private static String stackTrace(Throwable thrown) {
        StringWriter text = new StringWriter();
        thrown.printStackTrace(new PrintWriter(text));
        return text.toString();
    }
}
