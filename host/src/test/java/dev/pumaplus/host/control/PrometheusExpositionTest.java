/*
 * Claims about GET /metrics of the control app: the Prometheus text format's structure (HELP and TYPE per
 * family, cumulative buckets, +Inf equal to _count), the content type, the per-worker and process gauges, a
 * predicted wait that stays finite with no live slot, and promtool's verdict when promtool is installed.
 */
package dev.pumaplus.host.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pumaplus.host.link.HostTransport;
import dev.pumaplus.host.measure.QueueMetrics;
import dev.pumaplus.host.measure.RuntimeGauges;
import dev.pumaplus.host.queue.Dispatcher;
import dev.pumaplus.host.queue.DispatcherTest;
import dev.pumaplus.host.queue.EmbeddedWorker;
import dev.pumaplus.host.queue.QueueFixture;
import dev.pumaplus.host.queue.QueueSnapshot;
import dev.pumaplus.host.queue.RecordingSink;
import dev.pumaplus.host.queue.WebSocketReadout;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class PrometheusExpositionTest {

    private static final List<String> HISTOGRAMS = List.of("puma_plus_queue_seconds", "puma_plus_service_seconds",
            "puma_plus_total_seconds", "puma_plus_body_wait_seconds", "puma_plus_upstream_seconds");
    private static final Pattern BUCKET = Pattern.compile("^(\\w+)_bucket\\{le=\"([^\"]+)\"} (\\d+)$");

    private final QueueFixture queue = new QueueFixture();
    private final Dispatcher dispatcher = queue.dispatcher;

    @AfterEach
    void releaseBuffers() {
        queue.releaseAll();
    }

    private String renderWithData() {
        QueueMetrics metrics = dispatcher.metrics();
        long[] samples = {50_000, 100_000, 150_000, 700_000, 3_000_000, 40_000_000, 900_000_000, 45_000_000_000L};
        for (long v : samples) {
            metrics.queue.record(v);
            metrics.service.record(v * 2);
            metrics.total.record(v * 3);
        }
        metrics.countStatus(200);
        metrics.countStatus(404);
        metrics.countStatus(502);
        metrics.tick(System.nanoTime(), 8);
        return PrometheusExposition.render(metrics, dispatcher.snapshot());
    }

    @Test
    void theWebSocketHubsCountsAreGaugesAndCountersWithHelpAndType() {
        String text = PrometheusExposition.render(dispatcher.metrics(), dispatcher.snapshot(),
                new WebSocketReadout.WebSocketCounts(3, 2, 4, 5, 6, 7));
        for (String line : new String[] {"# TYPE puma_plus_websockets_held gauge", "puma_plus_websockets_held 3",
                "# TYPE puma_plus_webtransport_sessions gauge", "puma_plus_webtransport_sessions 2",
                "# TYPE puma_plus_webtransport_sessions_refused_total counter",
                "puma_plus_webtransport_sessions_refused_total 4",
                "# TYPE puma_plus_webtransport_streams_refused_total counter",
                "puma_plus_webtransport_streams_refused_total 5",
                "# TYPE puma_plus_webtransport_datagrams_dropped_total counter",
                "puma_plus_webtransport_datagrams_dropped_total 6",
                "# TYPE puma_plus_webtransport_datagrams_unsent_total counter",
                "puma_plus_webtransport_datagrams_unsent_total 7"}) {
            assertTrue(text.lines().anyMatch(line::equals), line);
        }
        assertFalse(PrometheusExposition.render(dispatcher.metrics(), dispatcher.snapshot()).contains("webtransport"),
                "without the hub's counts, no WebSocket families");
    }

    @Test
    void histogramBucketsAreCumulativeNonDecreasingAndInfEqualsCount() {
        String text = renderWithData();
        Map<String, List<Long>> buckets = new HashMap<>();
        Map<String, Long> inf = new HashMap<>();
        Map<String, Long> counts = new HashMap<>();
        for (String line : text.split("\n")) {
            Matcher m = BUCKET.matcher(line);
            if (m.matches()) {
                if (m.group(2).equals("+Inf")) {
                    inf.put(m.group(1), Long.parseLong(m.group(3)));
                } else {
                    buckets.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(Long.parseLong(m.group(3)));
                }
            } else if (line.matches("^\\w+_count \\d+$")) {
                String[] parts = line.split(" ");
                counts.put(parts[0].substring(0, parts[0].length() - "_count".length()), Long.parseLong(parts[1]));
            }
        }
        for (String name : HISTOGRAMS) {
            assertTrue(text.contains("# HELP " + name + " "), name + " HELP");
            assertTrue(text.contains("# TYPE " + name + " histogram\n"), name + " TYPE");
            List<Long> b = buckets.get(name);
            assertEquals(PrometheusExposition.BUCKETS.length, b.size(), name);
            for (int i = 1; i < b.size(); i++) {
                assertTrue(b.get(i) >= b.get(i - 1), name + " buckets non-decreasing: " + b);
            }
            assertTrue(inf.get(name) >= b.get(b.size() - 1), name);
            assertEquals(counts.get(name), inf.get(name), name + ": +Inf equals _count");
        }
        // queue: 50 µs and exactly 100 µs at or below 0.0001 s; 45 s only in +Inf
        assertTrue(text.contains("puma_plus_queue_seconds_bucket{le=\"0.0001\"} 2\n"), text);
        assertTrue(text.contains("puma_plus_queue_seconds_bucket{le=\"30\"} 7\n"), text);
        assertTrue(text.contains("puma_plus_queue_seconds_count 8\n"), text);
        assertTrue(text.contains("puma_plus_requests_total{status_class=\"4xx\"} 1\n"), text);
        assertTrue(text.contains("puma_plus_requests_total{status_class=\"5xx\"} 1\n"), text);
        assertTrue(text.contains("# TYPE puma_plus_requests_dropped_total counter\npuma_plus_requests_dropped_total 0\n"));
        assertTrue(text.contains("# TYPE puma_plus_requests_redispatched_total counter\npuma_plus_requests_redispatched_total 0\n"));
        for (String gauge : List.of("puma_plus_queue_depth", "puma_plus_live_slots", "puma_plus_busy_slots",
                "puma_plus_predicted_wait_seconds", "puma_plus_utilization", "puma_plus_gvl_wait_ratio")) {
            assertTrue(text.contains("# TYPE " + gauge + " gauge\n" + gauge + " "), gauge);
        }
    }

    @Test
    void gvlWaitIsAHistogramOfTheRequestsThatMeasuredItAndItsRatioIsNanWhileUnknown() {
        String unknown = PrometheusExposition.render(dispatcher.metrics(), dispatcher.snapshot());
        assertTrue(unknown.contains("\npuma_plus_gvl_wait_ratio NaN\n"), unknown);
        assertTrue(unknown.contains("\npuma_plus_gvl_wait_seconds_count 0\n"), unknown);
        QueueMetrics metrics = dispatcher.metrics();
        metrics.recordGvlWait(2_000_000, 40_000_000);
        metrics.recordGvlWait(0, 60_000_000);
        metrics.tick(System.nanoTime(), queue.admission.submitted());
        String text = PrometheusExposition.render(metrics, dispatcher.snapshot());
        assertTrue(text.contains("# TYPE puma_plus_gvl_wait_seconds histogram\n"), text);
        assertTrue(text.contains("\npuma_plus_gvl_wait_seconds_bucket{le=\"0.0025\"} 2\n"), text);
        assertTrue(text.contains("\npuma_plus_gvl_wait_seconds_count 2\n"), text);
        double ratio = text.lines().filter(l -> l.startsWith("puma_plus_gvl_wait_ratio "))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.indexOf(' ') + 1))).findFirst().orElseThrow();
        assertEquals(0.02, ratio, 0.0005, "2 ms of GVL wait in 100 ms of service");
    }

    @Test
    void theConcurrencyLimitIsAGaugeOnlyWhileFiberSlotsRunUnderIt() {
        assertFalse(PrometheusExposition.render(dispatcher.metrics(), dispatcher.snapshot())
                .contains("puma_plus_concurrency_limit"));
        dispatcher.concurrencyLimit(24);
        String text = PrometheusExposition.render(dispatcher.metrics(), dispatcher.snapshot());
        assertTrue(text.contains("# TYPE puma_plus_concurrency_limit gauge\npuma_plus_concurrency_limit 24\n"), text);
    }

    @Test
    void predictedWaitIsTheDocumentedCapNeverInfinityWhileNoSlotIsLive() {
        String text = PrometheusExposition.render(dispatcher.metrics(), dispatcher.snapshot());
        assertEquals(0, dispatcher.snapshot().live());
        assertTrue(text.contains("\npuma_plus_predicted_wait_seconds 3600\n"), text);
        assertEquals(3600, PrometheusExposition.PREDICTED_WAIT_CAP_SECONDS);
        assertTrue(text.lines().noneMatch(l -> l.endsWith(" +Inf")), "no sample reads +Inf: " + text);
    }

    @Test
    void eachWorkerProcessHasItsBusyAndIdleSlotsAndResidentMemoryUnderItsPidIndexAndGeneration() {
        EmbeddedWorker a = new EmbeddedWorker(queue, 100, 0);
        new EmbeddedWorker(queue, 100, 0);
        new EmbeddedWorker(queue, 200, 1);
        queue.admission.submit(new Object(), DispatcherTest.get("/"), io.netty.buffer.Unpooled.EMPTY_BUFFER, null,
                new RecordingSink());
        a.discardSent();
        QueueSnapshot slots = dispatcher.snapshot();
        RuntimeGauges.Sample runtime = new RuntimeGauges.Sample(50L << 20, 1.5, 42, 1024, 17, 10L << 20, 20L << 20,
                -1, List.of(new RuntimeGauges.Collector("G1 \"Young\" Generation", 3, 0.012)),
                Map.of(100L, 80L << 20));
        String text = PrometheusExposition.render(dispatcher.metrics(), slots, null, runtime);
        assertTrue(text.contains("puma_plus_worker_slots{pid=\"100\",index=\"0\",generation=\"1\",state=\"busy\"} 1\n"),
                text);
        assertTrue(text.contains("puma_plus_worker_slots{pid=\"100\",index=\"0\",generation=\"1\",state=\"idle\"} 1\n"),
                text);
        assertTrue(text.contains("puma_plus_worker_slots{pid=\"200\",index=\"1\",generation=\"1\",state=\"idle\"} 1\n"),
                text);
        assertTrue(text.contains("puma_plus_worker_resident_memory_bytes{pid=\"100\",index=\"0\",generation=\"1\"} "
                + (80L << 20) + "\n"), text);
        assertTrue(!text.contains("puma_plus_worker_resident_memory_bytes{pid=\"200\""),
                "a worker whose memory could not be read is left out");
        assertTrue(text.contains("\nprocess_resident_memory_bytes " + (50L << 20) + "\n"), text);
        assertTrue(text.contains("\nprocess_cpu_seconds_total 1.5\n"), text);
        assertTrue(text.contains("\nprocess_open_fds 42\n"), text);
        assertTrue(text.contains("\nprocess_max_fds 1024\n"), text);
        assertTrue(text.contains("\njvm_threads_current 17\n"), text);
        assertTrue(text.contains("\njvm_memory_bytes_used{area=\"heap\"} " + (10L << 20) + "\n"), text);
        assertTrue(!text.contains("jvm_memory_bytes_max"), "an undefined heap limit is left out");
        assertTrue(text.contains("# TYPE jvm_gc_collection_seconds summary\n"
                + "jvm_gc_collection_seconds_count{gc=\"G1 \\\"Young\\\" Generation\"} 3\n"
                + "jvm_gc_collection_seconds_sum{gc=\"G1 \\\"Young\\\" Generation\"} 0.012\n"), text);
        assertTrue(text.contains("puma_plus_health_checks_total{answered_by=\"host\"} 0\n"), text);
    }

    @Test
    void theRuntimeReadingComesFromThisProcessAndItsOwnProc() {
        long self = ProcessHandle.current().pid();
        RuntimeGauges.Sample r = RuntimeGauges.sample(List.of(self, Long.MAX_VALUE));
        assertTrue(r.residentBytes() > 10L << 20, "a JVM's RSS is over 10 MiB: " + r.residentBytes());
        assertEquals(Map.of(self, r.workerResidentBytes().get(self)), r.workerResidentBytes(),
                "a pid that does not exist is absent");
        assertTrue(r.openFds() >= 3, "stdin, stdout, stderr at least: " + r.openFds());
        assertTrue(r.threads() >= 1);
        assertTrue(r.heapUsedBytes() > 0);
        assertTrue(!r.collectors().isEmpty());
        assertTrue(r.cpuSeconds() > 0);
    }

    @Test
    void sampleValuesAreWrittenTheWayTheFormatSpellsThem() {
        assertEquals("0", PrometheusExposition.number(0));
        assertEquals("12", PrometheusExposition.number(12));
        assertEquals("0.00025", PrometheusExposition.number(0.00025));
        assertEquals("+Inf", PrometheusExposition.number(Double.POSITIVE_INFINITY));
        assertEquals("NaN", PrometheusExposition.number(Double.NaN));
    }

    @Test
    void metricsEndpointServesTheTextFormatThatPromtoolAccepts() throws Exception {
        renderWithData();
        HostTransport transport = HostTransport.select(1);
        ControlApp app = new ControlApp(dispatcher, null, null, 1, 1, Instant.now());
        try {
            InetSocketAddress bound = app.bind(transport, "tcp://127.0.0.1:0");
            HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + bound.getPort() + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode());
            assertEquals("text/plain; version=0.0.4; charset=utf-8",
                    response.headers().firstValue("content-type").orElse(""));
            assertTrue(response.body().contains("puma_plus_queue_seconds_count 8\n"));

            Path promtool = Path.of("/usr/bin/promtool");
            String missing = "promtool not installed (script/setup installs Debian's prometheus)";
            if ("true".equals(System.getenv("CI"))) {
                assertTrue(Files.isExecutable(promtool), missing); // CI must run the check, never skip it
            }
            Assumptions.assumeTrue(Files.isExecutable(promtool), missing);
            Process check = new ProcessBuilder(promtool.toString(), "check", "metrics").redirectErrorStream(true).start();
            check.getOutputStream().write(response.body().getBytes(StandardCharsets.UTF_8));
            check.getOutputStream().close();
            String verdict = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(check.waitFor(10, TimeUnit.SECONDS));
            assertEquals(0, check.exitValue(), "promtool check metrics: " + verdict);
            assertEquals("", verdict.trim(), "no lint findings");
        } finally {
            app.close();
            transport.shutdown();
        }
    }
}
