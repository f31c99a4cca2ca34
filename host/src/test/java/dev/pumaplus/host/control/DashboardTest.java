/*
 * Claims about /dashboard on the control app: the page and the vendored library (the files its NOTICE.md
 * records) are served from the host jar, behind the control app's token; the event stream sends a snapshot at once and one a second on the
 * channel's own event loop, and its timer is gone once the channel closes.
 */
package dev.pumaplus.host.control;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pumaplus.host.link.HostTransport;
import dev.pumaplus.host.queue.QueueFixture;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class DashboardTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final QueueFixture queue = new QueueFixture();

    @AfterEach
    void releaseBuffers() {
        queue.releaseAll();
    }

    /** The stream on an embedded channel: its time is the test's, advanced by hand. */
    private EmbeddedChannel stream(AtomicInteger snapshots) {
        Dashboard dashboard = new Dashboard(queue.dispatcher, () -> {
            snapshots.incrementAndGet(); // asked once a snapshot
            return List.of();
        });
        EmbeddedChannel channel = new EmbeddedChannel(new SimpleChannelInboundHandler<FullHttpRequest>() {
            @Override
            protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
                dashboard.handle(ctx, request, Dashboard.EVENTS, response -> ctx.writeAndFlush(response));
            }
        });
        channel.freezeTime();
        channel.writeInbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, Dashboard.EVENTS));
        return channel;
    }

    private static String chunkText(Object message) {
        assertInstanceOf(HttpContent.class, message);
        ByteBuf content = ((HttpContent) message).content();
        try {
            return content.toString(StandardCharsets.UTF_8);
        } finally {
            ReferenceCountUtil.release(message);
        }
    }

    @Test
    void theStreamSendsASnapshotAtOnceThenOneASecondAndItsTimerEndsWithTheChannel() throws Exception {
        AtomicInteger snapshots = new AtomicInteger();
        EmbeddedChannel channel = stream(snapshots);
        HttpResponse head = assertInstanceOf(HttpResponse.class, channel.readOutbound());
        assertEquals(200, head.status().code());
        assertEquals("text/event-stream; charset=utf-8", head.headers().get("content-type"));
        assertEquals("no-store", head.headers().get("cache-control"));
        assertTrue(HttpUtil.isTransferEncodingChunked(head));
        assertEquals("retry: 2000\n\n", chunkText(channel.readOutbound()));

        channel.runScheduledPendingTasks();
        String first = chunkText(channel.readOutbound());
        assertTrue(first.startsWith("data: {") && first.endsWith("}\n\n"), first);
        JsonNode snapshot = JSON.readTree(first.substring("data: ".length()));
        assertTrue(snapshot.has("queue") && snapshot.has("slots") && snapshot.has("decisions"), first);
        assertNull(channel.readOutbound(), "nothing more before a second has passed");

        channel.advanceTimeBy(Dashboard.PERIOD_MS, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        assertTrue(chunkText(channel.readOutbound()).startsWith("data: {"));
        assertEquals(2, snapshots.get());

        channel.close();
        channel.advanceTimeBy(10 * Dashboard.PERIOD_MS, TimeUnit.MILLISECONDS);
        assertEquals(-1, channel.runScheduledPendingTasks(), "no timer is left once the channel closed");
        assertEquals(2, snapshots.get(), "no snapshot after the close");
        assertFalse(channel.finishAndReleaseAll());
    }

    @Test
    void theVendoredLibraryInTheHostJarIsTheOneItsNoticeRecords() throws Exception {
        String notice;
        try (InputStream in = Dashboard.class.getResourceAsStream("dashboard/NOTICE.md")) {
            notice = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        java.util.regex.Matcher sums = java.util.regex.Pattern.compile("- sha256 `([^`]+)`: `([0-9a-f]{64})`")
                .matcher(notice);
        List<String> checked = new java.util.ArrayList<>();
        while (sums.find()) {
            try (InputStream file = Dashboard.class.getResourceAsStream("dashboard/" + sums.group(1))) {
                byte[] digest = java.security.MessageDigest.getInstance("SHA-256").digest(file.readAllBytes());
                assertEquals(sums.group(2), java.util.HexFormat.of().formatHex(digest), sums.group(1));
            }
            checked.add(sums.group(1));
        }
        assertEquals(List.of(Dashboard.SCRIPT, Dashboard.STYLE, "LICENSE"), checked);
    }

    @Test
    void thePageAndTheVendoredLibraryAreServedFromTheHostJarBehindTheToken() throws Exception {
        HostTransport transport = HostTransport.select(1);
        ControlApp app = new ControlApp(queue.dispatcher, "s3cret", null, 1, 1, Instant.now());
        try {
            InetSocketAddress bound = app.bind(transport, "tcp://127.0.0.1:0");
            HttpClient client = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + bound.getPort();
            var page = client.send(HttpRequest.newBuilder(URI.create(base + "/dashboard?token=s3cret")).build(),
                    BodyHandlers.ofString());
            assertEquals(200, page.statusCode());
            assertEquals("text/html; charset=utf-8", page.headers().firstValue("content-type").orElse(""));
            assertTrue(page.body().contains("window.dashboardState"), "the page keeps its state where tests read it");

            var script = client.send(HttpRequest.newBuilder(URI.create(base + "/dashboard/uPlot.iife.min.js?token=s3cret"))
                    .build(), BodyHandlers.ofByteArray());
            assertEquals(200, script.statusCode());
            try (InputStream vendored = Dashboard.class.getResourceAsStream("dashboard/uPlot.iife.min.js")) {
                assertArrayEquals(vendored.readAllBytes(), script.body(), "served as vendored, byte for byte");
            }
            for (String[] expect : new String[][] {
                {"/dashboard", "403"}, {"/dashboard/events", "403"}, {"/dashboard/nothing?token=s3cret", "404"}}) {
                var answer = client.send(HttpRequest.newBuilder(URI.create(base + expect[0])).build(),
                        BodyHandlers.discarding());
                assertEquals(Integer.parseInt(expect[1]), answer.statusCode(), expect[0]);
            }
            var post = client.send(HttpRequest.newBuilder(URI.create(base + "/dashboard/events?token=s3cret"))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), BodyHandlers.discarding());
            assertEquals(405, post.statusCode());

            var events = client.send(HttpRequest.newBuilder(URI.create(base + "/dashboard/events?token=s3cret")).build(),
                    BodyHandlers.ofLines());
            assertEquals(200, events.statusCode());
            try (var lines = events.body()) {
                String data = lines.filter(line -> line.startsWith("data: ")).findFirst().orElseThrow();
                assertTrue(JSON.readTree(data.substring("data: ".length())).has("workers"), data);
            }
        } finally {
            app.close();
            transport.shutdown();
        }
    }

    @Test
    void theMetricsListenerServesTheDashboardWithoutTheTokenAndNothingThatActs() throws Exception {
        HostTransport transport = HostTransport.select(1);
        ControlApp app = new ControlApp(queue.dispatcher, "s3cret", null, 1, 1, Instant.now());
        try {
            InetSocketAddress bound = app.bindMetrics(transport, "tcp://127.0.0.1:0");
            HttpClient client = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + bound.getPort();
            for (String[] expect : new String[][] {
                {"/dashboard", "200"}, {"/dashboard/uPlot.min.css", "200"}, {"/stats", "404"}, {"/stop", "404"}}) {
                var answer = client.send(HttpRequest.newBuilder(URI.create(base + expect[0])).build(),
                        BodyHandlers.discarding());
                assertEquals(Integer.parseInt(expect[1]), answer.statusCode(), expect[0]);
            }
        } finally {
            app.close();
            transport.shutdown();
        }
    }
}
