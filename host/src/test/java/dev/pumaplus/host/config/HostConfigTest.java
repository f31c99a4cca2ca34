/*
 * The host's typed settings: a missing key takes its named default, those defaults are the ones
 * docs/CONFIG.md documents for the CONFIG frame (which the gem's ConfigurationDocTest holds the gem's
 * defaults to, so Java and Ruby agree through the one table), and every key the record claims to read it reads.
 */
package dev.pumaplus.host.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pumaplus.host.lifecycle.ShepherdConfig;
import dev.pumaplus.spi.ConnectionSettings;
import dev.pumaplus.spi.WebSocketSettings;
import dev.pumaplus.spi.WebTransportSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class HostConfigTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path DOC = Path.of("../docs/CONFIG.md");

    /** key → documented default (JSON) from the table under "## The CONFIG frame". */
    private static Map<String, JsonNode> documentedDefaults() throws Exception {
        String doc = Files.readString(DOC);
        String section = doc.substring(doc.indexOf("## The CONFIG frame"));
        Map<String, JsonNode> defaults = new LinkedHashMap<>();
        for (String line : section.lines().filter(l -> l.startsWith("| `")).toList()) {
            String[] cells = line.split("\\|");
            String key = cells[1].trim().replace("`", "");
            String cell = cells[3].trim();
            defaults.put(key, JSON.readTree(cell.substring(1, cell.length() - 1)));
        }
        return defaults;
    }

    private static ObjectNode documentedConfig() throws Exception {
        ObjectNode config = JSON.createObjectNode();
        documentedDefaults().forEach(config::set);
        return config;
    }

    @Test
    void missingKeysTakeTheNamedDefaults() {
        assertEquals(HostConfig.DEFAULTS, HostConfig.from(JSON.createObjectNode()));
    }

    @Test
    void everyKeyTheRecordReadsIsDocumentedWithTheRecordsDefault() throws Exception {
        Map<String, JsonNode> documented = documentedDefaults();
        for (String key : HostConfig.KEYS) {
            assertTrue(documented.containsKey(key), key + " is not in docs/CONFIG.md's CONFIG frame table");
        }
        assertEquals(HostConfig.DEFAULTS, HostConfig.from(documentedConfig()));
    }

    @Test
    void everyKeyTheRecordNamesChangesTheRecord() throws Exception {
        for (String key : HostConfig.KEYS) {
            JsonNode documented = documentedDefaults().get(key);
            boolean changed = false;
            for (JsonNode other : otherValues(documented)) {
                ObjectNode config = documentedConfig();
                config.set(key, other);
                changed |= !HostConfig.DEFAULTS.equals(HostConfig.from(config));
            }
            assertTrue(changed, key + ": no other value changes the record, so it does not read the key");
        }
    }

    private static List<JsonNode> otherValues(JsonNode value) {
        if (value.isNumber()) {
            return List.of(JSON.valueToTree(value.asDouble() + 1));
        }
        if (value.isBoolean()) {
            return List.of(JSON.valueToTree(!value.asBoolean()));
        }
        if (value.isTextual()) {
            return List.of(JSON.valueToTree(value.asText() + "x"), JSON.valueToTree("json"));
        }
        if (value.isArray()) {
            return List.of(JSON.createArrayNode());
        }
        return List.of(JSON.valueToTree(7), JSON.valueToTree("/x"));
    }

    @Test
    void protocolBundlesReadTheDocumentedConnectionSettingsWhereTheConfigIsSilent() throws Exception {
        ShepherdConfig empty = ShepherdConfig.parse("{}", url -> { });
        ShepherdConfig documented = ShepherdConfig.parse(JSON.writeValueAsString(documentedConfig()), url -> { });
        ConnectionSettings defaults = ConnectionSettings.from(empty);
        assertEquals(defaults, ConnectionSettings.from(documented));
        assertEquals(ConnectionSettings.NO_LIMIT, defaults.contentLengthLimit());
        assertEquals(HostConfig.DEFAULTS.persistentTimeout(), defaults.persistentTimeout());
        assertEquals(HostConfig.DEFAULTS.firstDataTimeout(), defaults.firstDataTimeout());
        assertEquals(HostConfig.DEFAULTS.writeTimeout(), defaults.writeTimeout());
        assertEquals(HostConfig.DEFAULTS.headerTimeout(), defaults.headerTimeout());
        assertEquals(ConnectionSettings.DERIVED, defaults.maxConnections());
        assertNull(HostConfig.DEFAULTS.maxConnections());
        assertEquals(HostConfig.DEFAULTS.maxPipelinedRequests(), defaults.maxPipelinedRequests());
        assertEquals(WebSocketSettings.from(empty), WebSocketSettings.from(documented),
                "the WebSocket limits' named defaults are the documented ones");
        assertEquals(WebTransportSettings.from(empty), WebTransportSettings.from(documented),
                "the WebTransport limits' named defaults are the documented ones");
    }

    @Test
    void nullMeansNoneWhereASettingMayBeAbsentAndTheDefaultElsewhere() throws Exception {
        HostConfig c = HostConfig.from(JSON.readTree(
                "{\"shed_wait_limit_ms\": null, \"health_check_path\": null, \"control_url\": null, \"workers\": null,"
                + " \"max_connections\": null}"));
        assertNull(c.shedWaitLimitMs());
        assertNull(c.maxConnections());
        assertNull(c.healthCheckPath());
        assertNull(c.controlUrl());
        assertEquals(HostConfig.DEFAULT_WORKERS, c.workers());
    }

    @Test
    void fiberSlotsRunUnderTheConcurrencyLimitAndTheBootLineCallsThemFibers() throws Exception {
        HostConfig fibers = HostConfig.from(JSON.readTree("{\"threads\": 40, \"slot_kind\": \"fiber\"}"));
        assertTrue(fibers.fiberSlots());
        assertEquals("fiber", fibers.slotNoun());
        assertEquals(40, fibers.slots());
        for (String kind : List.of("thread", "ractor")) {
            HostConfig other = HostConfig.from(JSON.readTree("{\"slot_kind\": \"" + kind + "\"}"));
            assertEquals(false, other.fiberSlots(), kind);
            assertEquals("thread", other.slotNoun(), kind);
        }
    }

    @Test
    void fractionalSecondsKeepTheirFraction() throws Exception {
        assertEquals(Duration.ofMillis(1500), HostConfig.from(JSON.readTree("{\"shutdown_timeout\": 1.5}")).shutdownTimeout());
    }

    @Test
    void listenerChangesNameOnlyTheKeysARestartCannotApply() throws Exception {
        HostConfig next = HostConfig.from(JSON.readTree(
                "{\"binds\": [\"tcp://127.0.0.1:1\"], \"write_timeout\": 3, \"workers\": 4, \"shutdown_timeout\": 1}"));
        assertEquals(List.of("binds", "write_timeout"), HostConfig.DEFAULTS.listenerChanges(next));
        assertEquals(List.of(), HostConfig.DEFAULTS.listenerChanges(HostConfig.DEFAULTS));
        HostConfig control = HostConfig.from(JSON.readTree(
                "{\"metrics_url\": \"tcp://127.0.0.1:2\", \"control_token\": \"t\", \"controller_jar_dir\": \"/j\"}"));
        assertEquals(List.of("metrics_url", "control_token", "controller_jar_dir"),
                HostConfig.DEFAULTS.listenerChanges(control), "the control app keeps its first settings too");
    }
}
