/*
 * The operator's autoscale settings (docs/CONFIG.md, "The CONFIG frame": autoscale, autoscale_min,
 * autoscale_max, autoscale_target_queue_p95_ms, autoscale_actuator, autoscale_bridge, decision_log), and
 * whether the workers run fiber slots (slot_kind), typed and with their defaults named once; read by the
 * controller bundle when it starts.
 */
package dev.pumaplus.controller;

import dev.pumaplus.spi.HostSettings;
import java.nio.file.Path;

/**
 * A key the configuration lacks takes the default named here, which is what the gem sends when nothing is
 * configured (AutoscaleSettingsTest holds them to the documented default column). Immutable.
 *
 * @param enabled      {@code autoscale}: without it the controller bundle does nothing
 * @param minUnits     the fewest worker processes the policy may keep
 * @param maxUnits     the most worker processes the policy may start
 * @param targetP95Ms  the queue-time p95 target, ms (it overrides the policy file's)
 * @param actuator     the kind of the primary actuator
 * @param bridge       the kind of the bridge actuator, or null for none
 * @param decisionLog  where the JSONL decision log goes, or null for none
 * @param fiberSlots   {@code slot_kind} is {@code fiber}: the concurrency limiter runs (with or without
 *                     {@code autoscale})
 */
record AutoscaleSettings(boolean enabled, long minUnits, long maxUnits, double targetP95Ms, String actuator,
                         String bridge, Path decisionLog, boolean fiberSlots) {

    static final long DEFAULT_MIN_UNITS = 1;
    static final long DEFAULT_MAX_UNITS = 8;
    static final double DEFAULT_TARGET_P95_MS = 50.0;
    static final String DEFAULT_ACTUATOR = "fork";
    static final String DEFAULT_SLOT_KIND = "thread";

    static AutoscaleSettings from(HostSettings settings) {
        String target = settings.string("autoscale_target_queue_p95_ms", null);
        String bridge = settings.string("autoscale_bridge", null);
        String log = settings.string("decision_log", null);
        return new AutoscaleSettings("true".equals(settings.string("autoscale", "false")),
                settings.number("autoscale_min", DEFAULT_MIN_UNITS), settings.number("autoscale_max", DEFAULT_MAX_UNITS),
                target == null ? DEFAULT_TARGET_P95_MS : Double.parseDouble(target),
                settings.string("autoscale_actuator", DEFAULT_ACTUATOR),
                bridge == null || bridge.isEmpty() ? null : bridge, log == null ? null : Path.of(log),
                "fiber".equals(settings.string("slot_kind", DEFAULT_SLOT_KIND)));
    }
}
