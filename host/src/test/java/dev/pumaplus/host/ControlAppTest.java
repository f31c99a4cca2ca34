/*
 * Claims about the control app's /stats: puma's cluster shape computed from the live links, the shared
 * backlog split so per-worker values sum to the queue depth, and the token and path checks.
 */
package dev.pumaplus.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class ControlAppTest {

    private final QueueFixture queue = new QueueFixture();
    private final Dispatcher dispatcher = queue.dispatcher;

    @AfterEach
    void releaseBuffers() {
        queue.releaseAll();
    }

    @Test
    void statsGroupLinksByWorkerProcessAndSplitTheBacklogSoItSumsToTheQueueDepth() {
        EmbeddedWorker a1 = new EmbeddedWorker(queue, 100, 0);
        new EmbeddedWorker(queue, 100, 0);
        EmbeddedWorker b1 = new EmbeddedWorker(queue, 200, 1);
        for (int i = 0; i < 6; i++) {
            queue.admission.submit(new Object(), DispatcherTest.get("/" + i), Unpooled.EMPTY_BUFFER, null, new RecordingSink());
        }
        a1.discardSent(); // three requests run, three wait
        a1.respond("done"); // a1 takes the next waiting one
        b1.discardSent();
        JsonNode stats = new ControlApp(dispatcher, null, 2, 2, Instant.parse("2026-01-01T00:00:00Z")).stats();
        assertEquals("2026-01-01T00:00:00Z", stats.get("started_at").asText());
        assertEquals(2, stats.get("workers").asInt());
        assertEquals(2, stats.get("booted_workers").asInt());
        assertEquals(2, stats.get("backlog").asInt());
        JsonNode w0 = stats.get("worker_status").get(0);
        JsonNode w1 = stats.get("worker_status").get(1);
        assertEquals(100, w0.get("pid").asLong());
        assertEquals(0, w0.get("index").asInt());
        assertEquals(2, w0.get("last_status").get("running").asInt());
        assertEquals(2, w0.get("last_status").get("busy_threads").asInt());
        assertEquals(0, w0.get("last_status").get("pool_capacity").asInt());
        assertEquals(1, w0.get("last_status").get("requests_count").asInt());
        assertEquals(2, w0.get("last_status").get("max_threads").asInt());
        assertEquals(1, w1.get("last_status").get("running").asInt());
        assertEquals(2, w0.get("last_status").get("backlog").asInt() + w1.get("last_status").get("backlog").asInt(),
                "per-worker backlog sums to the global depth");
        assertTrue(w0.get("booted").asBoolean());
        Instant.parse(w0.get("last_checkin").asText());
    }

    @Test
    void statsKeepPumasKeysAndAddTheQueueObjectWithItsWindows() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        for (int i = 0; i < 3; i++) {
            queue.admission.submit(new Object(), DispatcherTest.get("/" + i), Unpooled.EMPTY_BUFFER, null, new RecordingSink());
        }
        worker.discardSent();
        queue.advance(3_000_000L); // the first holds its slot for 3 ms
        worker.respond("one"); // the second is dispatched, the third waits
        worker.discardSent();
        dispatcher.metrics().tick(System.nanoTime(), queue.admission.submitted());
        JsonNode stats = new ControlApp(dispatcher, null, 1, 1, Instant.now()).stats();
        for (String key : new String[] {"started_at", "workers", "phase", "booted_workers", "old_workers",
                "backlog", "worker_status"}) {
            assertTrue(stats.has(key), key);
        }
        JsonNode queue = stats.get("queue");
        assertEquals("10s", queue.get("window").asText());
        for (String key : new String[] {"p50_ms", "p95_ms", "p99_ms", "max_ms", "predicted_wait_ms",
                "service_p50_ms", "service_p95_ms", "arrivals_per_s", "utilization", "slot_mean_ms"}) {
            assertTrue(queue.get(key).isNumber(), key + " is a number: " + queue);
        }
        assertEquals(1, queue.get("depth").asInt());
        assertEquals(1, queue.get("busy_slots").asInt());
        assertEquals(1, queue.get("live_slots").asInt());
        assertEquals(0, queue.get("dropped").asInt());
        assertTrue(queue.get("predicted_wait_ms").asDouble() > 0, "one waits, the slot is busy: " + queue);
        assertTrue(queue.get("arrivals_per_s").asDouble() > 0, "3 submits in the first (short) second");
        for (String window : new String[] {"1s", "10s", "60s"}) {
            JsonNode w = queue.get("windows").get(window);
            assertEquals(2, w.get("count").asInt(), window + ": two dispatched");
            for (String metric : new String[] {"queue", "service", "total"}) {
                for (String p : new String[] {"p50", "p90", "p95", "p99", "max"}) {
                    assertTrue(w.get(metric + "_" + p + "_ms").isNumber(), window + " " + metric + "_" + p);
                }
            }
            assertTrue(w.get("arrivals_per_s").isNumber());
        }
        assertTrue(queue.get("max_ms").toString().matches("\\d+\\.\\d{3}"), "ms with 3 decimals: " + queue.get("max_ms"));
    }

    @Test
    void backlogRemainderGoesOneApieceToTheFirstWorkers() {
        new EmbeddedWorker(queue, 1, 0).link.channel.close(); // none left: depth must still be reported
        EmbeddedWorker a = new EmbeddedWorker(queue, 10, 0);
        EmbeddedWorker b = new EmbeddedWorker(queue, 20, 1);
        EmbeddedWorker c = new EmbeddedWorker(queue, 30, 2);
        for (int i = 0; i < 8; i++) {
            queue.admission.submit(new Object(), DispatcherTest.get("/" + i), Unpooled.EMPTY_BUFFER, null, new RecordingSink());
        }
        a.discardSent();
        b.discardSent();
        c.discardSent();
        JsonNode stats = new ControlApp(dispatcher, null, 3, 1, Instant.now()).stats();
        assertEquals(5, stats.get("backlog").asInt());
        int[] backlog = new int[3];
        for (int i = 0; i < 3; i++) {
            backlog[i] = stats.get("worker_status").get(i).get("last_status").get("backlog").asInt();
        }
        assertEquals(2, backlog[0]);
        assertEquals(2, backlog[1]);
        assertEquals(1, backlog[2]);
    }

    @Test
    void httpStatsRequiresTheTokenAndAnswersUnknownPathsWith404() throws Exception {
        HostTransport transport = HostTransport.select(1);
        ControlApp app = new ControlApp(dispatcher, "s3cret", 1, 1, Instant.now());
        try {
            InetSocketAddress bound = app.bind(transport, "tcp://127.0.0.1:0");
            HttpClient client = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + bound.getPort();
            assertEquals(403, get(client, base + "/stats").statusCode());
            assertEquals(403, get(client, base + "/stats?token=wrong").statusCode());
            HttpResponse<String> ok = get(client, base + "/stats?token=s3cret");
            assertEquals(200, ok.statusCode());
            assertEquals(0, new ObjectMapper().readTree(ok.body()).get("backlog").asInt());
            assertTrue(ok.headers().firstValue("content-type").orElse("").startsWith("application/json"));
            HttpResponse<String> pretty = get(client, base + "/stats?token=s3cret&pretty=1");
            assertTrue(pretty.body().contains("\n  \"workers\""), pretty.body());
            assertEquals(404, get(client, base + "/nope?token=s3cret").statusCode());
        } finally {
            app.close();
            transport.shutdown();
        }
    }

    private static HttpResponse<String> get(HttpClient client, String url) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
