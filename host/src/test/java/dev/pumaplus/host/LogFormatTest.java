/*
 * log_format json: the host's text lines become one JSON object each, request lines with their fields.
 */
package dev.pumaplus.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class LogFormatTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void lifecycleLineBecomesAnObjectWithoutThePrefix() throws Exception {
        String line = LogFormat.json("puma-plus: ready, 4 slots");
        assertFalse(line.contains("\n"));
        JsonNode node = JSON.readTree(line);
        assertEquals("ready, 4 slots", node.get("message").asText());
        assertEquals("host", node.get("source").asText());
        assertEquals(ProcessHandle.current().pid(), node.get("pid").asLong());
    }

    @Test
    void requestLineKeepsEveryTimingPointAsANumber() throws Exception {
        JsonNode node = JSON.readTree(LogFormat.json(
                "puma-plus: request id=7 GET /a/b 200 t1=1 t2=2 t2b=3 t3=4 t4=5 t5=6 t6=7 body_read=0"));
        assertEquals("GET", node.get("method").asText());
        assertEquals("/a/b", node.get("path").asText());
        assertEquals(200, node.get("status").asInt());
        assertEquals(7, node.get("id").asLong());
        assertEquals(4, node.get("t3").asLong());
        assertEquals(0, node.get("body_read").asLong());
    }
}
