/*
 * Claims about the control app's /stats: puma's cluster shape computed from the live links, the shared
 * backlog split so per-worker values sum to the queue depth; and its two listeners' rules: the token on
 * every control path, no state change from a browser page, no token only on loopback, and the metrics
 * listener serving /metrics alone; and its routes running off the event loop that serves requests.
 */
package dev.pumaplus.host.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pumaplus.host.link.HostTransport;
import dev.pumaplus.host.queue.Dispatcher;
import dev.pumaplus.host.queue.DispatcherTest;
import dev.pumaplus.host.queue.EmbeddedWorker;
import dev.pumaplus.host.queue.QueueFixture;
import dev.pumaplus.host.queue.RecordingSink;
import dev.pumaplus.host.queue.WebSocketReadout;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
    void statsCarryTheWebSocketHubsCounts() {
        StatsDocument document = new StatsDocument(dispatcher, 1, 1, Instant.now());
        document.webSockets(() -> new WebSocketReadout.WebSocketCounts(3, 2, 4, 5, 6, 7));
        JsonNode ws = document.render().get("websockets");
        assertEquals(3, ws.get("held").asInt());
        JsonNode wt = ws.get("webtransport");
        assertEquals(List.of(2, 4, 5, 6, 7), List.of(wt.get("sessions").asInt(), wt.get("sessions_refused").asInt(),
                wt.get("streams_refused").asInt(), wt.get("datagrams_dropped").asInt(),
                wt.get("datagrams_unsent").asInt()));
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
        JsonNode stats = new StatsDocument(dispatcher, 2, 2, Instant.parse("2026-01-01T00:00:00Z")).render();
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
        JsonNode stats = new StatsDocument(dispatcher, 1, 1, Instant.now()).render();
        assertFalse(stats.has("websockets"), "without the hub's counts, no websockets object");
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
        assertEquals(0, queue.get("redispatched").asInt());
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
    void withFiberSlotsStatsShowTheConcurrencyLimitAndPredictTheWaitBehindIt() {
        JsonNode threads = new StatsDocument(dispatcher, 1, 1, Instant.now()).render().get("queue");
        assertFalse(threads.has("concurrency_limit"), "thread slots have no limit: " + threads);
        dispatcher.concurrencyLimit(1);
        for (int i = 0; i < 4; i++) {
            new EmbeddedWorker(queue, 100, 0);
        }
        for (int i = 0; i < 3; i++) {
            queue.admission.submit(new Object(), DispatcherTest.get("/" + i), Unpooled.EMPTY_BUFFER, null, new RecordingSink());
        }
        JsonNode limited = new StatsDocument(dispatcher, 1, 4, Instant.now()).render().get("queue");
        assertEquals(1, limited.get("concurrency_limit").asInt());
        assertEquals(4, limited.get("live_slots").asInt());
        assertEquals(1, limited.get("busy_slots").asInt());
        assertEquals(2, limited.get("depth").asInt(), "two wait behind the limit while three fibers idle");
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
        JsonNode stats = new StatsDocument(dispatcher, 3, 1, Instant.now()).render();
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
        ControlApp app = new ControlApp(dispatcher, "s3cret", null, 1, 1, Instant.now());
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

    @Test
    void everyControlPathNeedsTheTokenEvenOneThatDoesNotExist() throws Exception {
        HostTransport transport = HostTransport.select(1);
        ControlApp app = new ControlApp(dispatcher, "s3cret", null, 1, 1, Instant.now());
        try {
            String base = "http://127.0.0.1:" + app.bind(transport, "tcp://127.0.0.1:0").getPort();
            HttpClient client = HttpClient.newHttpClient();
            for (String path : new String[] {"/metrics", "/stats", "/controller", "/stop", "/halt", "/nope"}) {
                assertEquals(403, get(client, base + path).statusCode(), path);
            }
            assertEquals(200, get(client, base + "/metrics?token=s3cret").statusCode());
        } finally {
            app.close();
            transport.shutdown();
        }
    }

    @Test
    void aVerbSentByABrowserPageIsRefusedWhileTheSameVerbFromPumactlRuns() throws Exception {
        HostTransport transport = HostTransport.select(1);
        ControlApp app = new ControlApp(dispatcher, "s3cret", null, 1, 1, Instant.now());
        CountDownLatch stopped = new CountDownLatch(1);
        AtomicInteger stops = new AtomicInteger();
        app.actions(new ControlApp.Actions() {
            @Override
            public void restart() {
            }

            @Override
            public void phasedRestart() {
            }

            @Override
            public void refork() {
            }

            @Override
            public void stop(boolean halt) {
                stops.incrementAndGet();
                stopped.countDown();
            }
        });
        try {
            String base = "http://127.0.0.1:" + app.bind(transport, "tcp://127.0.0.1:0").getPort();
            HttpClient client = HttpClient.newHttpClient();
            URI stop = URI.create(base + "/stop?token=s3cret");
            assertEquals(403, client.send(HttpRequest.newBuilder(stop).header("Sec-Fetch-Site", "cross-site").build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode(), "an <img src> on another site");
            assertEquals(403, client.send(HttpRequest.newBuilder(stop).header("Origin", "http://evil.example")
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString()).statusCode(),
                    "a form POST from another site");
            assertEquals(200, get(client, base + "/stats?token=s3cret").statusCode(), "a read is not a state change");
            assertEquals(0, stops.get(), "no refused request stopped anything");
            assertEquals(200, get(client, stop.toString()).statusCode(), "pumactl's GET with the token");
            assertTrue(stopped.await(5, TimeUnit.SECONDS));
            assertEquals(1, stops.get());
        } finally {
            app.close();
            transport.shutdown();
        }
    }

    @Test
    void aSlowControlRouteLeavesTheListenersEventLoopFreeForRequests() throws Exception {
        HostTransport transport = HostTransport.select(1); // as on one core: the loop every request uses
        ControlApp app = new ControlApp(dispatcher, "s3cret", null, 1, 1, Instant.now());
        CountDownLatch restarting = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        app.actions(new ControlApp.Actions() {
            @Override
            public void restart() { // stands for any slow route: a cold /stats took 52-100 ms
                restarting.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }

            @Override
            public void phasedRestart() {
            }

            @Override
            public void refork() {
            }

            @Override
            public void stop(boolean halt) {
            }
        });
        try {
            String base = "http://127.0.0.1:" + app.bind(transport, "tcp://127.0.0.1:0").getPort();
            HttpClient client = HttpClient.newHttpClient();
            var answer = client.sendAsync(HttpRequest.newBuilder(URI.create(base + "/restart?token=s3cret")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertTrue(restarting.await(5, TimeUnit.SECONDS), "the route started");
            assertEquals("ran", transport.group.next().submit(() -> "ran").get(2, TimeUnit.SECONDS),
                    "the event loop runs other work while the route is busy");
            release.countDown();
            assertEquals(200, answer.get(5, TimeUnit.SECONDS).statusCode());
        } finally {
            release.countDown();
            app.close();
            transport.shutdown();
        }
    }

    @Test
    void withoutATokenTheControlListenerRefusesANonLoopbackAddress() {
        HostTransport transport = HostTransport.select(1);
        ControlApp app = new ControlApp(dispatcher, null, null, 1, 1, Instant.now());
        try {
            IOException refused = assertThrows(IOException.class, () -> app.bind(transport, "tcp://0.0.0.0:0"));
            assertTrue(refused.getMessage().contains("not a loopback address"), refused.getMessage());
        } finally {
            app.close();
            transport.shutdown();
        }
    }

    @Test
    void withoutATokenARequestNamingAnotherHostIsRefusedAsDnsRebinding() throws Exception {
        HostTransport transport = HostTransport.select(1);
        ControlApp app = new ControlApp(dispatcher, null, null, 1, 1, Instant.now());
        try {
            int port = app.bind(transport, "tcp://127.0.0.1:0").getPort();
            assertTrue(rawGet(port, "/stats", "Host: 127.0.0.1:" + port).startsWith("HTTP/1.1 200"));
            assertTrue(rawGet(port, "/stats", "Host: localhost").startsWith("HTTP/1.1 200"));
            assertTrue(rawGet(port, "/stats", null).startsWith("HTTP/1.1 200"), "pumactl 5.6 sends HTTP/1.0 without Host");
            assertTrue(rawGet(port, "/stats", "Host: rebound.example:" + port).startsWith("HTTP/1.1 403"));
        } finally {
            app.close();
            transport.shutdown();
        }
    }

    @Test
    void theMetricsListenerServesMetricsWithoutTheTokenAndNoControlPath() throws Exception {
        HostTransport transport = HostTransport.select(1);
        ControlApp app = new ControlApp(dispatcher, "s3cret", null, 1, 1, Instant.now());
        app.actions(new ControlApp.Actions() {
            @Override
            public void restart() {
                throw new AssertionError("restart reached through the metrics listener");
            }

            @Override
            public void phasedRestart() {
                throw new AssertionError("phased restart reached through the metrics listener");
            }

            @Override
            public void refork() {
                throw new AssertionError("refork reached through the metrics listener");
            }

            @Override
            public void stop(boolean halt) {
                throw new AssertionError("stop reached through the metrics listener");
            }
        });
        try {
            String base = "http://127.0.0.1:" + app.bindMetrics(transport, "tcp://127.0.0.1:0").getPort();
            HttpClient client = HttpClient.newHttpClient();
            HttpResponse<String> metrics = get(client, base + "/metrics");
            assertEquals(200, metrics.statusCode());
            assertTrue(metrics.body().contains("# TYPE"), metrics.body());
            for (String path : new String[] {"/stats", "/controller", "/stop", "/halt", "/restart", "/reload-config",
                    "/phased-restart", "/stop?token=s3cret", "/stats?token=s3cret"}) {
                assertEquals(404, get(client, base + path).statusCode(), path);
            }
            assertEquals(405, client.send(HttpRequest.newBuilder(URI.create(base + "/metrics"))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString()).statusCode());
        } finally {
            app.close();
            transport.shutdown();
        }
    }

    @Test
    void aHostHeaderIsLoopbackOnlyWhenItNamesThisMachineLiterally() {
        for (String host : new String[] {"localhost", "LOCALHOST:9293", "127.0.0.1", "127.9.8.7:80", "[::1]", "[::1]:9293"}) {
            assertTrue(ControlApp.loopbackHost(host), host);
        }
        for (String host : new String[] {"evil.example", "localhost.evil.example", "127.0.0.1.evil.example", "10.0.0.1",
                "0.0.0.0:9293", "[::]", "[::2]:1", ""}) {
            assertFalse(ControlApp.loopbackHost(host), host);
        }
    }

    @Test
    void generatedTokensAre128RandomBitsInHex() {
        String a = ControlApp.randomToken();
        String b = ControlApp.randomToken();
        assertTrue(a.matches("[0-9a-f]{32}"), a);
        assertNotEquals(a, b);
    }

    /** One HTTP/1.0 GET on a raw socket with the given Host line (or none); returns the whole answer. */
    private static String rawGet(int port, String path, String hostLine) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(5000);
            String head = "GET " + path + " HTTP/1.0\r\n" + (hostLine == null ? "" : hostLine + "\r\n") + "\r\n";
            socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    private static HttpResponse<String> get(HttpClient client, String url) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
