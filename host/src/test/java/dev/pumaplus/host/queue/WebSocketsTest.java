/*
 * Claims about the host's held WebSocket connections between parse and queue (docs/WEBSOCKETS.md): events
 * are requests, one at a time per connection, routed sticky or flexibly, and the apps' WS_COMMAND frames
 * reach the held connections; checked on real WorkerLinks over embedded channels.
 */
package dev.pumaplus.host.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pumaplus.spi.Exchange;
import dev.pumaplus.spi.RequestHead;
import dev.pumaplus.spi.WebSocketHub;
import dev.pumaplus.spi.WebSocketPeer;
import dev.pumaplus.spi.WebSocketSession;
import dev.pumaplus.spi.WebSocketSettings;
import dev.pumaplus.spi.WebTransportSettings;
import dev.pumaplus.wire.Frame;
import dev.pumaplus.wire.ResponseHead;
import dev.pumaplus.wire.WebSocketCommand;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class WebSocketsTest {

    private final QueueFixture queue = new QueueFixture();
    private final WebSockets hub = queue.webSockets;

    @AfterEach
    void releaseBuffers() {
        queue.releaseAll();
    }

    /** A held connection as a protocol would offer it: records what the hub asks of it. */
    static class RecordingPeer implements WebSocketPeer {
        final List<String> events = new CopyOnWriteArrayList<>();

        @Override
        public void send(boolean binary, ByteBuf data) {
            events.add((binary ? "binary " : "text ") + data.toString(StandardCharsets.UTF_8));
            data.release();
        }

        @Override
        public void close(int code, String reason) {
            events.add("close " + code + " " + reason);
        }

        @Override
        public void reading(boolean on) {
            events.add(on ? "resume" : "pause");
        }
    }

    /** A WebTransport session's CONNECT as protocol-h3 offers it: an upgrade over HTTP/3. */
    private static final RequestHead WEBTRANSPORT = new RequestHead("GET", "/wt", "HTTP/3", "https",
            new InetSocketAddress("127.0.0.1", 8443), new InetSocketAddress("127.0.0.1", 50000),
            List.of(Map.entry("host", "localhost")), 1, 2);

    /** Runs the upgrade on {@code worker} (which must take it), accepted, and holds it. */
    private WebSocketSession accept(EmbeddedWorker worker, boolean sticky, RecordingPeer peer) {
        return accept(worker, DispatcherTest.get("/chat"), sticky, peer);
    }

    /** Runs the upgrade {@code head} on {@code worker} (which must take it), accepted, and holds it. */
    private WebSocketSession accept(EmbeddedWorker worker, RequestHead head, boolean sticky, RecordingPeer peer) {
        Exchange upgrade = hub.offer(new Object(), head, new RecordingSink());
        List<Frame> frames = worker.sent();
        assertEquals("upgrade", EmbeddedWorker.env(frames, WebSockets.EVENT), "the upgrade is marked");
        frames.forEach(Frame::release);
        worker.channel.writeInbound(new ResponseHead(101, 0, 0, 0,
                List.of(Map.entry("puma-plus-websocket", sticky ? "sticky" : "flexible")))
                .toFrame(ByteBufAllocator.DEFAULT, true));
        worker.channel.runPendingTasks();
        return hub.hold(upgrade, sticky, peer);
    }

    /** The event env of the one request {@code worker} was sent since the last call ("kind id"), or null. */
    private static String takeEvent(EmbeddedWorker worker) {
        List<Frame> frames = worker.sent();
        String kind = EmbeddedWorker.env(frames, WebSockets.EVENT);
        String type = EmbeddedWorker.env(frames, WebSockets.TYPE);
        frames.forEach(Frame::release);
        return kind == null ? null : kind + (type == null ? "" : " " + type);
    }

    private static ByteBuf text(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.UTF_8);
    }

    @Test
    void aStickyConnectionsEventsWaitForTheProcessThatAcceptedItWhileAnotherIdles() {
        EmbeddedWorker first = new EmbeddedWorker(queue, 100, 0);
        EmbeddedWorker second = new EmbeddedWorker(queue, 200, 1);
        WebSocketSession session = accept(first, true, new RecordingPeer());
        assertEquals("open", takeEvent(first));
        first.respond("");
        for (int i = 0; i < 2; i++) {
            queue.admission.submit(new Object(), DispatcherTest.get("/busy"), Unpooled.EMPTY_BUFFER, null,
                    new RecordingSink());
        }
        first.discardSent();
        second.discardSent();
        session.message(false, text("hi"), System.nanoTime());
        second.respond("done");
        assertNull(takeEvent(second), "the other process's idle link does not take a sticky event");
        assertEquals(1, queue.dispatcher.snapshot().depth());
        first.respond("done");
        assertEquals("message text", takeEvent(first));
    }

    @Test
    void aStickyConnectionFollowsAnotherProcessOnceItsOwnIsGone() {
        EmbeddedWorker first = new EmbeddedWorker(queue, 100, 0);
        EmbeddedWorker second = new EmbeddedWorker(queue, 200, 1);
        WebSocketSession session = accept(first, true, new RecordingPeer());
        assertEquals("open", takeEvent(first));
        first.channel.close(); // the process died mid-event: the open event is lost, the connection stays
        first.channel.runPendingTasks();
        session.message(false, text("after"), System.nanoTime());
        assertEquals("message text", takeEvent(second));
    }

    @Test
    void aConnectionsNextEventWaitsUntilTheResponseToThePreviousEnded() {
        EmbeddedWorker first = new EmbeddedWorker(queue, 100, 0);
        EmbeddedWorker second = new EmbeddedWorker(queue, 200, 1);
        WebSocketSession session = accept(first, false, new RecordingPeer());
        assertEquals("open", takeEventFromEither(first, second));
        session.message(false, text("one"), System.nanoTime());
        session.message(true, text("two"), System.nanoTime());
        assertNull(takeEventFromEither(first, second), "a flexible connection still runs one event at a time");
        assertEquals(1, queue.dispatcher.snapshot().busy());
        respondBusy(first, second);
        assertEquals("message text", takeEventFromEither(first, second));
        respondBusy(first, second);
        assertEquals("message binary", takeEventFromEither(first, second));
    }

    @Test
    void aWebTransportStreamMessageCarriesItsKindAndStreamIdAndADatagramItsKind() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        WebSocketSession session = accept(worker, true, new RecordingPeer());
        assertEquals("open", takeEvent(worker));
        session.streamMessage(8, text("on a stream"), System.nanoTime());
        worker.respond("");
        List<Frame> frames = worker.sent();
        assertEquals("message", EmbeddedWorker.env(frames, WebSockets.EVENT));
        assertEquals("stream", EmbeddedWorker.env(frames, WebSockets.TYPE));
        assertEquals("8", EmbeddedWorker.env(frames, WebSockets.STREAM_ID), "the stream's QUIC id");
        frames.forEach(Frame::release);
        session.datagram(text("a datagram"), System.nanoTime());
        worker.respond("");
        frames = worker.sent();
        assertEquals("datagram", EmbeddedWorker.env(frames, WebSockets.TYPE));
        assertNull(EmbeddedWorker.env(frames, WebSockets.STREAM_ID), "a datagram has no stream");
        frames.forEach(Frame::release);
    }

    /** The event one of two workers was sent (asserting that not both were), or null. */
    private static String takeEventFromEither(EmbeddedWorker a, EmbeddedWorker b) {
        String x = takeEvent(a);
        String y = takeEvent(b);
        assertTrue(x == null || y == null, "one event went to one link");
        return x != null ? x : y;
    }

    /** Ends the response of whichever of two workers is busy. */
    private void respondBusy(EmbeddedWorker a, EmbeddedWorker b) {
        (queue.dispatcher.snapshot().processes().stream().anyMatch(p -> p.pid() == 100 && p.busy() == 1) ? a : b)
                .respond("");
    }

    @Test
    void aConnectionWhoseEventsPileUpStopsBeingReadUntilTheyDrain() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        RecordingPeer peer = new RecordingPeer();
        WebSocketSession session = accept(worker, false, peer);
        for (int i = 0; i < WebSockets.MAX_WAITING_EVENTS; i++) {
            session.message(false, text("m" + i), System.nanoTime());
        }
        assertEquals(List.of("pause"), peer.events);
        for (int i = 0; i <= WebSockets.MAX_WAITING_EVENTS / 2 + 1; i++) {
            takeEvent(worker);
            worker.respond("");
        }
        assertEquals(List.of("pause", "resume"), peer.events);
    }

    @Test
    void commandsSendToOneConnectionBroadcastToAChannelAndIgnoreClosedOnes() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        RecordingPeer alice = new RecordingPeer();
        RecordingPeer bob = new RecordingPeer();
        WebSocketSession a = accept(worker, false, alice);
        takeEvent(worker);
        worker.respond("");
        WebSocketSession b = accept(worker, false, bob);
        takeEvent(worker);
        worker.respond("");
        queue.admission.submit(new Object(), DispatcherTest.get("/announce"), Unpooled.EMPTY_BUFFER, null,
                new RecordingSink());
        worker.takeRequestPath();
        command(worker, WebSocketCommand.JOIN, 0, a.id(), "room", "");
        command(worker, WebSocketCommand.JOIN, 0, b.id(), "room", "");
        command(worker, WebSocketCommand.SEND_TEXT, 0, a.id(), "", "just you");
        command(worker, WebSocketCommand.BROADCAST_TEXT, 0, 0, "room", "everyone");
        b.closed(1001);
        command(worker, WebSocketCommand.BROADCAST_BINARY, 0, 0, "room", "still here");
        command(worker, WebSocketCommand.SEND_TEXT, 0, b.id(), "", "gone");
        command(worker, WebSocketCommand.CLOSE, 4000, a.id(), "", "bye");
        worker.respond("");
        assertEquals(List.of("text just you", "text everyone", "binary still here", "close 4000 bye"), alice.events);
        assertEquals(List.of("text everyone"), bob.events);
        assertEquals(1, hub.held(), "the closed connection is no longer held");
    }

    @Test
    void datagramAndStreamCommandsReachTheirSessionsPeerAndAWebSocketRefusesThem() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        List<String> sent = new CopyOnWriteArrayList<>();
        RecordingPeer transport = new RecordingPeer() {
            @Override
            public boolean sendDatagram(ByteBuf data) {
                sent.add("datagram " + data.toString(StandardCharsets.UTF_8));
                data.release();
                return true;
            }

            @Override
            public boolean sendStream(long streamId, ByteBuf data, boolean finish) {
                sent.add("stream " + streamId + " " + data.toString(StandardCharsets.UTF_8) + (finish ? " FIN" : ""));
                data.release();
                return true;
            }
        };
        RecordingPeer webSocket = new RecordingPeer();
        WebSocketSession wt = accept(worker, false, transport);
        takeEvent(worker);
        worker.respond("");
        WebSocketSession ws = accept(worker, false, webSocket);
        takeEvent(worker);
        worker.respond("");
        queue.admission.submit(new Object(), DispatcherTest.get("/answer"), Unpooled.EMPTY_BUFFER, null,
                new RecordingSink());
        worker.takeRequestPath();
        command(worker, WebSocketCommand.SEND_DATAGRAM, 0, wt.id(), "", "pong");
        streamCommand(worker, 0, wt.id(), 4, "answer");
        streamCommand(worker, WebSocketCommand.FIN, wt.id(), WebSocketCommand.FIRST_APP_STREAM + 1, "");
        command(worker, WebSocketCommand.SEND_DATAGRAM, 0, ws.id(), "", "nowhere");
        streamCommand(worker, WebSocketCommand.FIN, ws.id(), 4, "nowhere");
        worker.respond("");
        assertEquals(List.of("datagram pong", "stream 4 answer", "stream " + (WebSocketCommand.FIRST_APP_STREAM + 1)
                + "  FIN"), sent);
        assertEquals(List.of(), webSocket.events, "a WebSocket is sent nothing and stays open");
        assertEquals(WebSocketPeer.FIRST_APP_STREAM, WebSocketCommand.FIRST_APP_STREAM, "the wire's split is the peer's");
    }

    @Test
    void theHubCountsItsWebSocketsAndWebTransportSessionsApartAndWhatTheProtocolsRefused() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        WebSocketSession ws = accept(worker, false, new RecordingPeer());
        takeEvent(worker);
        worker.respond("");
        WebSocketSession wt = accept(worker, WEBTRANSPORT, true, new RecordingPeer());
        hub.refused(WebSocketHub.Refusal.SESSION);
        hub.refused(WebSocketHub.Refusal.STREAM);
        hub.refused(WebSocketHub.Refusal.STREAM);
        hub.refused(WebSocketHub.Refusal.DATAGRAM);
        hub.refused(WebSocketHub.Refusal.DATAGRAM_UNSENT);
        assertEquals(new WebSocketReadout.WebSocketCounts(1, 1, 1, 2, 1, 1), hub.counts());
        wt.closed(1000);
        ws.closed(1000);
        assertEquals(new WebSocketReadout.WebSocketCounts(0, 0, 1, 2, 1, 1), hub.counts(), "held ones leave, refusals stay");
    }

    @Test
    void webSocketsAndWebTransportSessionsAreHeldToTheirOwnLimitsAndAnsweredTheHosts503Beyond() {
        hub.configure(new WebSocketSettings(WebSocketSettings.DEFAULT_MAX_MESSAGE, WebSocketSettings.DEFAULT_OUTBOUND_LIMIT,
                WebSocketSettings.DEFAULT_PING_INTERVAL, 1), new WebTransportSettings(16, 2, 64, 1 << 20, 1 << 20), 10);
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        accept(worker, false, new RecordingPeer());
        takeEvent(worker);
        worker.respond("");
        RecordingSink webSocket = new RecordingSink();
        assertEquals(HostAnswer.DONE, hub.offer(new Object(), DispatcherTest.get("/chat"), webSocket));
        assertEquals(503, webSocket.status);
        assertTrue(webSocket.events.get(0).contains("Retry-After=1"), webSocket.events.toString());
        assertEquals("too many WebSocket connections (1)\n", webSocket.bodyText());
        for (int i = 0; i < 2; i++) { // the held WebSocket takes none of the sessions' room
            accept(worker, WEBTRANSPORT, true, new RecordingPeer());
            takeEvent(worker);
            worker.respond("");
        }
        RecordingSink session = new RecordingSink();
        assertEquals(HostAnswer.DONE, hub.offer(new Object(), WEBTRANSPORT, session));
        assertEquals(503, session.status);
        assertTrue(session.events.get(0).contains("Retry-After=1"), session.events.toString());
        assertEquals("too many WebTransport sessions (2)\n", session.bodyText());
        assertEquals(new WebSocketReadout.WebSocketCounts(1, 2, 0, 0, 0, 0), hub.counts());
    }

    private static void streamCommand(EmbeddedWorker worker, int code, long id, long stream, String bytes) {
        ByteBuf data = Unpooled.buffer().writeLong(stream).writeBytes(bytes.getBytes(StandardCharsets.UTF_8));
        worker.channel.writeInbound(new WebSocketCommand(WebSocketCommand.SEND_STREAM, code, id, "",
                ByteBufUtil.getBytes(data)).toFrame(ByteBufAllocator.DEFAULT));
        data.release();
        worker.channel.runPendingTasks();
    }

    private static void command(EmbeddedWorker worker, int op, int code, long id, String channel, String data) {
        worker.channel.writeInbound(new WebSocketCommand(op, code, id, channel, data.getBytes(StandardCharsets.UTF_8))
                .toFrame(ByteBufAllocator.DEFAULT));
        worker.channel.runPendingTasks();
    }
}
