/*
 * The settings the host itself acts on, typed, from one shepherd generation's CONFIG frame (docs/CONFIG.md,
 * "The CONFIG frame"): how many slots to wait for, timeouts of stop and restart, the process files, the log,
 * admission. Protocol bundles read their own keys through the HostSettings service instead (their connection
 * settings as ConnectionSettings, whose named defaults this record shares).
 */
package dev.pumaplus.host.config;

import static dev.pumaplus.spi.ConnectionSettings.DEFAULT_FIRST_DATA_TIMEOUT;
import static dev.pumaplus.spi.ConnectionSettings.DEFAULT_HEADER_TIMEOUT;
import static dev.pumaplus.spi.ConnectionSettings.DEFAULT_MAX_PIPELINED_REQUESTS;
import static dev.pumaplus.spi.ConnectionSettings.DEFAULT_PERSISTENT_TIMEOUT;
import static dev.pumaplus.spi.ConnectionSettings.DEFAULT_WRITE_TIMEOUT;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One immutable record per CONFIG. A key the CONFIG lacks takes its named default, which is what the gem
 * sends when nothing is configured (docs/CONFIG.md lists the same value; HostConfigTest holds the three
 * together); a key sent as null means "none" where the setting may be absent (control app, process files,
 * content-length limit, shedding, health check) and the default elsewhere. A wrongly typed value counts
 * as absent: the gem validated every value before sending it.
 *
 * @param binds                  listener URIs ({@code binds})
 * @param workers                worker processes the shepherd forks, at least 1
 * @param threads                slots per worker process, at least 1
 * @param environment            RACK_ENV, for the boot line
 * @param controlUrl             the control app's listener, or null for none
 * @param controlToken           the token the control app requires, or null
 * @param persistentTimeout      keep-alive idle limit (read by protocol bundles; compared on restart)
 * @param firstDataTimeout       wait for a request's first bytes (protocol bundles; compared on restart)
 * @param writeTimeout           wait on a client taking no response bytes (protocol bundles; compared on restart)
 * @param httpContentLengthLimit request body limit in bytes, or null for none (protocol bundles; compared)
 * @param workerBootTimeout      how long a new generation's workers may take to dial in
 * @param shutdownTimeout        how long a graceful stop waits for queued and running requests
 * @param workerShutdownTimeout  how long a stopping worker may take before KILL
 * @param logRequests            one log line per finished request ({@code log_requests}, false when quiet)
 * @param serverTiming           the Server-Timing response header
 * @param logFormat              the host log's formatter ({@code log_format})
 * @param pidfile                where to write the host's pid, or null
 * @param statePath              where to write the state file for {@code puma-plus ctl -S}, or null
 * @param stdoutPath             the file stdout goes to ({@code stdout_redirect}), or null for the inherited one
 * @param stderrPath             the file stderr goes to, or null for the inherited one
 * @param shedWaitLimitMs        predicted wait in ms above which a request is shed, or null: never shed
 * @param healthCheckPath        the health check path, or null for none
 * @param healthCheckAnswer      {@code "app"} (jumps the queue) or {@code "host"} (the host answers)
 * @param bundles                bundle jar names in start order
 * @param headerTimeout          total time a request's header section may take (protocol bundles; compared)
 * @param maxConnections         connections per listener, or null: derived from the descriptor limit
 *                               (protocol-h1; compared on restart)
 * @param maxPipelinedRequests   requests an HTTP/1.1 connection may have unanswered (protocol-h1; compared)
 * @param controlNoToken         the control app runs without a token ({@code no_token: true}; the gem allows it
 *                               only on a loopback control URL); else a null {@code controlToken} means one
 *                               is generated at boot
 * @param metricsUrl             the read-only listener for /metrics and the dashboard, or null for none
 * @param controllerJarDir       the only directory {@code POST /controller?jar=} loads from, or null: no swap
 * @param slotKind               what each slot of a worker is: {@code "thread"}, {@code "fiber"} ({@code fibers N})
 *                               or {@code "ractor"}; fiber slots run under the concurrency limit
 */
public record HostConfig(
        List<String> binds, int workers, int threads, String environment, String controlUrl, String controlToken,
        Duration persistentTimeout, Duration firstDataTimeout, Duration writeTimeout, Long httpContentLengthLimit,
        Duration workerBootTimeout, Duration shutdownTimeout, Duration workerShutdownTimeout,
        boolean logRequests, boolean serverTiming, LogFormat logFormat,
        Path pidfile, Path statePath, Path stdoutPath, Path stderrPath,
        Double shedWaitLimitMs, String healthCheckPath, String healthCheckAnswer, List<String> bundles,
        Duration headerTimeout, Integer maxConnections, int maxPipelinedRequests,
        boolean controlNoToken, String metricsUrl, Path controllerJarDir, String slotKind) {

    static final List<String> DEFAULT_BINDS = List.of("tcp://0.0.0.0:9292");
    static final int DEFAULT_WORKERS = 1;
    static final int DEFAULT_THREADS = 5;
    static final String DEFAULT_ENVIRONMENT = "development";
    static final Duration DEFAULT_WORKER_BOOT_TIMEOUT = Duration.ofSeconds(60);
    static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);
    static final Duration DEFAULT_WORKER_SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);
    /** A quarter of the default client_timeout (10 s), as the gem resolves it. */
    static final double DEFAULT_SHED_WAIT_LIMIT_MS = 2500.0;
    static final String DEFAULT_HEALTH_CHECK_PATH = "/health";
    static final String DEFAULT_HEALTH_CHECK_ANSWER = "app";
    static final List<String> DEFAULT_BUNDLES = List.of("protocol-h2", "protocol-h1");
    static final String DEFAULT_SLOT_KIND = "thread";
    /** The slot kind whose slots run under the concurrency limit. */
    static final String FIBER_SLOTS = "fiber";

    /** The CONFIG keys this record reads, in the order of its components. */
    static final List<String> KEYS = List.of("binds", "workers", "threads", "environment", "control_url",
            "control_token", "persistent_timeout", "first_data_timeout", "write_timeout",
            "http_content_length_limit", "worker_boot_timeout", "shutdown_timeout", "worker_shutdown_timeout",
            "log_requests", "server_timing", "log_format", "pidfile", "state_path", "stdout_path", "stderr_path",
            "shed_wait_limit_ms", "health_check_path", "health_check_answer", "bundles", "header_timeout",
            "max_connections", "max_pipelined_requests", "control_no_token", "metrics_url", "controller_jar_dir",
            "slot_kind");

    /**
     * The keys whose change a hot restart reports but cannot apply: the listeners, the control app (its
     * token, drawn once per process, and its jar directory) and the bundles stay.
     */
    private static final List<String> LISTENER_KEYS = List.of("binds", "control_url", "persistent_timeout",
            "first_data_timeout", "write_timeout", "http_content_length_limit", "bundles", "header_timeout",
            "max_connections", "max_pipelined_requests", "metrics_url", "control_token", "control_no_token", "controller_jar_dir");

    /** Every setting at its default: what an empty CONFIG object means. */
    public static final HostConfig DEFAULTS = new HostConfig(DEFAULT_BINDS, DEFAULT_WORKERS, DEFAULT_THREADS,
            DEFAULT_ENVIRONMENT, null, null, DEFAULT_PERSISTENT_TIMEOUT, DEFAULT_FIRST_DATA_TIMEOUT,
            DEFAULT_WRITE_TIMEOUT, null, DEFAULT_WORKER_BOOT_TIMEOUT, DEFAULT_SHUTDOWN_TIMEOUT,
            DEFAULT_WORKER_SHUTDOWN_TIMEOUT, false, false, LogFormat.TEXT, null, null, null, null,
            DEFAULT_SHED_WAIT_LIMIT_MS, DEFAULT_HEALTH_CHECK_PATH, DEFAULT_HEALTH_CHECK_ANSWER, DEFAULT_BUNDLES,
            DEFAULT_HEADER_TIMEOUT, null, DEFAULT_MAX_PIPELINED_REQUESTS, false, null, null, DEFAULT_SLOT_KIND);

    /** Reads the CONFIG object {@code root}. */
    public static HostConfig from(JsonNode root) {
        return new HostConfig(
                strings(root, "binds", DEFAULT_BINDS),
                Math.max(1, (int) number(root, "workers", DEFAULT_WORKERS)),
                Math.max(1, (int) number(root, "threads", DEFAULT_THREADS)),
                text(root, "environment", DEFAULT_ENVIRONMENT),
                text(root, "control_url", null),
                text(root, "control_token", null),
                seconds(root, "persistent_timeout", DEFAULT_PERSISTENT_TIMEOUT),
                seconds(root, "first_data_timeout", DEFAULT_FIRST_DATA_TIMEOUT),
                seconds(root, "write_timeout", DEFAULT_WRITE_TIMEOUT),
                root.hasNonNull("http_content_length_limit") ? (long) number(root, "http_content_length_limit", 0) : null,
                seconds(root, "worker_boot_timeout", DEFAULT_WORKER_BOOT_TIMEOUT),
                seconds(root, "shutdown_timeout", DEFAULT_SHUTDOWN_TIMEOUT),
                seconds(root, "worker_shutdown_timeout", DEFAULT_WORKER_SHUTDOWN_TIMEOUT),
                flag(root, "log_requests"),
                flag(root, "server_timing"),
                LogFormat.named(text(root, "log_format", "text")),
                path(root, "pidfile"),
                path(root, "state_path"),
                path(root, "stdout_path"),
                path(root, "stderr_path"),
                root.has("shed_wait_limit_ms") ? nullableNumber(root.get("shed_wait_limit_ms")) : (Double) DEFAULT_SHED_WAIT_LIMIT_MS,
                text(root, "health_check_path", DEFAULT_HEALTH_CHECK_PATH),
                text(root, "health_check_answer", DEFAULT_HEALTH_CHECK_ANSWER),
                strings(root, "bundles", DEFAULT_BUNDLES),
                seconds(root, "header_timeout", DEFAULT_HEADER_TIMEOUT),
                root.hasNonNull("max_connections") ? (int) number(root, "max_connections", 0) : null,
                (int) number(root, "max_pipelined_requests", DEFAULT_MAX_PIPELINED_REQUESTS),
                flag(root, "control_no_token"),
                text(root, "metrics_url", null),
                path(root, "controller_jar_dir"),
                text(root, "slot_kind", DEFAULT_SLOT_KIND));
    }

    /** Slots the generation's workers open: workers × threads. */
    public int slots() {
        return workers * threads;
    }

    /** The workers' slots are fibers: they run under the concurrency limit (docs/CONTROL.md). */
    public boolean fiberSlots() {
        return FIBER_SLOTS.equals(slotKind);
    }

    /** What the boot line calls a worker's slots: "fiber" for fiber slots, else "thread" (as puma does). */
    public String slotNoun() {
        return fiberSlots() ? "fiber" : "thread";
    }

    /** The health check is answered by the host, not the app. */
    public boolean hostAnswersHealthCheck() {
        return "host".equals(healthCheckAnswer);
    }

    /**
     * The CONFIG keys of listener settings whose value in {@code next} differs from this one: a hot restart
     * reports them, since the listeners, the control app and the bundles stay as they are.
     */
    public List<String> listenerChanges(HostConfig next) {
        List<Object> mine = listenerValues();
        List<Object> theirs = next.listenerValues();
        List<String> changed = new ArrayList<>();
        for (int i = 0; i < LISTENER_KEYS.size(); i++) {
            if (!Objects.equals(mine.get(i), theirs.get(i))) {
                changed.add(LISTENER_KEYS.get(i));
            }
        }
        return changed;
    }

    /** The values of {@link #LISTENER_KEYS}, in that order. */
    private List<Object> listenerValues() {
        return java.util.Arrays.asList(binds, controlUrl, persistentTimeout, firstDataTimeout, writeTimeout,
                httpContentLengthLimit, bundles, headerTimeout, maxConnections, maxPipelinedRequests,
                metricsUrl, controlToken, controlNoToken, controllerJarDir);
    }

    private static String text(JsonNode root, String key, String fallback) {
        JsonNode node = root.get(key);
        if (node == null) {
            return fallback;
        }
        return node.isNull() ? null : node.asText();
    }

    private static double number(JsonNode root, String key, double fallback) {
        JsonNode node = root.get(key);
        return node != null && node.isNumber() ? node.asDouble() : fallback;
    }

    private static Double nullableNumber(JsonNode node) {
        return node.isNumber() ? node.asDouble() : null;
    }

    private static Duration seconds(JsonNode root, String key, Duration fallback) {
        JsonNode node = root.get(key);
        return node != null && node.isNumber() ? Duration.ofNanos((long) (node.asDouble() * 1e9)) : fallback;
    }

    /** JSON {@code true} or the text {@code "true"} is on; anything else, or nothing, off. */
    private static boolean flag(JsonNode root, String key) {
        JsonNode node = root.get(key);
        return node != null && (node.isBoolean() ? node.booleanValue() : "true".equals(node.asText()));
    }

    private static Path path(JsonNode root, String key) {
        String value = text(root, key, null);
        return value == null ? null : Path.of(value);
    }

    private static List<String> strings(JsonNode root, String key, List<String> fallback) {
        JsonNode node = root.get(key);
        if (node == null || !node.isArray()) {
            return fallback;
        }
        List<String> out = new ArrayList<>();
        node.forEach(n -> out.add(n.asText()));
        return List.copyOf(out);
    }
}
