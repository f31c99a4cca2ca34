/*
 * The host log's one formatter: text lines are the runtime contract's "puma-plus: ..." lines, and under
 * log_format json every record (host, library, request line, exception) is one JSON object on one line.
 */
package dev.pumaplus.host.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pumaplus.host.boot.Launcher;
import dev.pumaplus.host.queue.RequestLog;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class LogFormatTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static LogRecord record(String logger, Level level, String message, Throwable thrown) {
        LogRecord record = new LogRecord(level, message);
        record.setLoggerName(logger);
        record.setThrown(thrown);
        return record;
    }

    /** Parses {@code text} as exactly one line holding one JSON object. */
    private static JsonNode oneJsonLine(String text) throws Exception {
        assertEquals(text.length() - 1, text.indexOf('\n'), "one line, ending in its only newline: " + text);
        return JSON.readTree(text);
    }

    @Test
    void hostRecordIsTheContractLineInText() {
        assertEquals("puma-plus: ready, 4 slots\n",
                LogFormat.TEXT.format(record(Launcher.class.getName(), Level.INFO, "ready, 4 slots", null)));
    }

    @Test
    void messageThatAlreadyHasThePrefixKeepsOnlyOne() {
        assertEquals("puma-plus: TLS on https://x:1\n",
                LogFormat.TEXT.format(record("dev.pumaplus.protocol.h1.H1Server", Level.INFO, "puma-plus: TLS on https://x:1", null)));
    }

    @Test
    void libraryRecordNamesItsLoggerAndLevelInText() {
        assertEquals("puma-plus: io.netty.channel.DefaultChannelPipeline WARNING: tail reached\n",
                LogFormat.TEXT.format(record("io.netty.channel.DefaultChannelPipeline", Level.WARNING, "tail reached", null)));
    }

    @Test
    void hostRecordBecomesAnObjectWithoutThePrefix() throws Exception {
        JsonNode node = oneJsonLine(LogFormat.JSON.format(record(Launcher.class.getName(), Level.INFO, "puma-plus: ready, 4 slots", null)));
        assertEquals("ready, 4 slots", node.get("message").asText());
        assertEquals("host", node.get("source").asText());
        assertEquals("info", node.get("level").asText());
        assertEquals(Launcher.class.getName(), node.get("logger").asText());
        assertEquals(ProcessHandle.current().pid(), node.get("pid").asLong());
    }

    @Test
    void exceptionStaysInsideTheOneJsonLine() throws Exception {
        JsonNode node = oneJsonLine(LogFormat.JSON.format(record("io.netty.channel.DefaultChannelPipeline",
                Level.WARNING, "An exceptionCaught() event was fired", new IllegalStateException("boom \"quoted\"\nsecond line"))));
        assertEquals("warning", node.get("level").asText());
        assertTrue(node.get("error").asText().startsWith("java.lang.IllegalStateException: boom \"quoted\"\nsecond line\n\tat "),
                node.get("error").asText());
    }

    @Test
    void severeIsErrorAndFineIsDebug() throws Exception {
        assertEquals("error", oneJsonLine(LogFormat.JSON.format(record("x", Level.SEVERE, "m", null))).get("level").asText());
        assertEquals("debug", oneJsonLine(LogFormat.JSON.format(record("x", Level.FINE, "m", null))).get("level").asText());
    }

    @Test
    void requestLineKeepsEveryTimingPointAsANumber() throws Exception {
        JsonNode node = oneJsonLine(LogFormat.JSON.format(record(RequestLog.class.getName(), Level.INFO,
                "puma-plus: request id=7 GET /a/b 200 t1=1 t2=2 t2b=3 t3=4 t4=5 t5=6 t6=7 body_read=0", null)));
        assertEquals("GET", node.get("method").asText());
        assertEquals("/a/b", node.get("path").asText());
        assertEquals(200, node.get("status").asInt());
        assertEquals(7, node.get("id").asLong());
        assertEquals(4, node.get("t3").asLong());
        assertEquals(0, node.get("body_read").asLong());
    }

    @Test
    void logFormatNamesJsonOrElseText() {
        assertEquals(LogFormat.JSON, LogFormat.named("json"));
        assertEquals(LogFormat.TEXT, LogFormat.named("text"));
    }
}
