/*
 * The controller's typed autoscale settings: where the configuration is silent they take the defaults
 * docs/CONFIG.md documents for the CONFIG frame, the table the gem's ConfigurationDocTest holds the gem to.
 */
package dev.pumaplus.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pumaplus.spi.HostSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class AutoscaleSettingsTest {

    /** The default column of {@code key}'s row in the CONFIG frame table, without its backquotes. */
    private static String documentedDefault(String key) throws Exception {
        String doc = Files.readString(Path.of("../../docs/CONFIG.md"));
        String table = doc.substring(doc.indexOf("## The CONFIG frame"));
        String row = table.lines().filter(l -> l.startsWith("| `" + key + "` |")).findFirst()
                .orElseThrow(() -> new AssertionError(key + " is not in docs/CONFIG.md's CONFIG frame table"));
        return row.split("\\|")[3].trim().replace("`", "").replace("\"", "");
    }

    /** HostSettings over a map, as the host's view of a CONFIG frame. */
    private record MapSettings(Map<String, String> values) implements HostSettings {
        @Override
        public String string(String key, String fallback) {
            return values.getOrDefault(key, fallback);
        }

        @Override
        public long number(String key, long fallback) {
            return values.containsKey(key) ? Long.parseLong(values.get(key)) : fallback;
        }

        @Override
        public List<String> strings(String key) {
            return List.of();
        }

        @Override
        public void listening(String url) {
        }
    }

    @Test
    void whereTheConfigIsSilentTheDocumentedDefaultsApply() throws Exception {
        AutoscaleSettings defaults = AutoscaleSettings.from(new MapSettings(Map.of()));
        assertEquals(Boolean.parseBoolean(documentedDefault("autoscale")), defaults.enabled());
        assertEquals(Long.parseLong(documentedDefault("autoscale_min")), defaults.minUnits());
        assertEquals(Long.parseLong(documentedDefault("autoscale_max")), defaults.maxUnits());
        assertEquals(documentedDefault("autoscale_actuator"), defaults.actuator());
        assertEquals("null", documentedDefault("autoscale_bridge"));
        assertNull(defaults.bridge());
        assertEquals(Double.parseDouble(documentedDefault("autoscale_target_queue_p95_ms")), defaults.targetP95Ms());
        assertNull(defaults.decisionLog());
        assertEquals("thread", documentedDefault("slot_kind"));
        assertFalse(defaults.fiberSlots());
    }

    @Test
    void everySettingIsReadFromItsKey() {
        AutoscaleSettings s = AutoscaleSettings.from(new MapSettings(Map.of("autoscale", "true", "autoscale_min", "2",
                "autoscale_max", "12", "autoscale_target_queue_p95_ms", "25.0", "autoscale_actuator", "fork",
                "autoscale_bridge", "ractor", "decision_log", "log/decisions.jsonl")));
        assertTrue(s.enabled());
        assertEquals(2, s.minUnits());
        assertEquals(12, s.maxUnits());
        assertEquals(25.0, s.targetP95Ms());
        assertEquals("ractor", s.bridge());
        assertEquals(Path.of("log/decisions.jsonl"), s.decisionLog());
        assertTrue(AutoscaleSettings.from(new MapSettings(Map.of("slot_kind", "fiber"))).fiberSlots());
        assertNull(AutoscaleSettings.from(new MapSettings(Map.of("autoscale_bridge", ""))).bridge(), "an empty bridge is none");
    }
}
