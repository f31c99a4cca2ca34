/*
 * Claims about the shared codec of a held WebSocket (parse → queue, respond): Netty's RFC 6455 pieces as
 * HeldWebSocketHandler.install puts them together, fed with masked frames from Netty's client-side encoder
 * and read back with its client-side decoder, on embedded channels.
 */
package dev.pumaplus.host.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.pumaplus.spi.WebSocketPeer;
import dev.pumaplus.spi.WebSocketSession;
import dev.pumaplus.spi.WebSocketSettings;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameDecoder;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameEncoder;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketClientExtension;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionUtil;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketServerExtension;
import io.netty.handler.codec.http.websocketx.extensions.compression.PerMessageDeflateClientExtensionHandshaker;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class HeldWebSocketHandlerTest {

    /** What the hub's session heard. */
    static final class RecordingSession implements WebSocketSession {
        final List<String> events = new ArrayList<>();

        @Override
        public long id() {
            return 1;
        }

        @Override
        public void message(boolean binary, ByteBuf data, long arrivedNanos) {
            events.add((binary ? "binary " : "text ") + data.toString(StandardCharsets.UTF_8));
            data.release();
        }

        @Override
        public void closed(int code) {
            events.add("closed " + code);
        }
    }

    /** Messages of at most 64 bytes, no pings. */
    private static final WebSocketSettings SETTINGS = new WebSocketSettings(64, 1 << 20, Duration.ZERO, 10);

    private RecordingSession session = new RecordingSession();
    private final EmbeddedChannel client = new EmbeddedChannel(new WebSocket13FrameEncoder(true),
            new WebSocket13FrameDecoder(false, true, 1 << 20));
    private EmbeddedChannel server;
    private HeldWebSocketHandler held;

    @BeforeEach
    void install() {
        server = new EmbeddedChannel();
        server.pipeline().addLast("bytes", new ChannelInboundHandlerAdapter());
        held = HeldWebSocketHandler.install(server.pipeline(), "bytes", SETTINGS, 1, null);
        held.held(session);
    }

    /**
     * Replaces the server's connection with one whose codec agreed permessage-deflate (RFC 7692) with the
     * client, whose encoder then compresses every message it sends, as browsers and Python's websockets
     * client do; the new connection has a session of its own.
     */
    private void installWithDeflate(WebSocketSettings settings) {
        server.finishAndReleaseAll();
        session = new RecordingSession();
        PerMessageDeflateClientExtensionHandshaker offer = new PerMessageDeflateClientExtensionHandshaker();
        List<Map.Entry<String, String>> answer = new ArrayList<>();
        WebSocketServerExtension deflate = HeldWebSocketHandler.negotiateDeflate(offer.newRequestData().name(), settings,
                answer);
        WebSocketClientExtension compressing = offer.handshakeExtension(
                WebSocketExtensionUtil.extractExtensions(answer.get(0).getValue()).get(0));
        client.pipeline().addLast(compressing.newExtensionEncoder());
        server = new EmbeddedChannel();
        server.pipeline().addLast("bytes", new ChannelInboundHandlerAdapter());
        held = HeldWebSocketHandler.install(server.pipeline(), "bytes", settings, 1, deflate);
        held.held(session);
    }

    @AfterEach
    void release() {
        server.finishAndReleaseAll();
        client.finishAndReleaseAll();
    }

    /** Sends frames as a browser would: masked, through Netty's client encoder. */
    private void send(WebSocketFrame... frames) {
        for (WebSocketFrame frame : frames) {
            client.writeOutbound(frame);
            for (ByteBuf bytes; (bytes = client.readOutbound()) != null; ) {
                server.writeInbound(bytes);
            }
        }
        server.runPendingTasks();
    }

    /** The frames the server wrote, decoded by Netty's client decoder (the caller releases them). */
    private List<WebSocketFrame> received() {
        server.runPendingTasks();
        for (Object bytes; (bytes = server.readOutbound()) != null; ) {
            client.writeInbound(bytes);
        }
        List<WebSocketFrame> frames = new ArrayList<>();
        for (WebSocketFrame frame; (frame = client.readInbound()) != null; ) {
            frames.add(frame);
        }
        return frames;
    }

    private static ByteBuf utf8(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.UTF_8);
    }

    @Test
    void aFragmentedMaskedMessageReachesTheSessionWhole() {
        send(new TextWebSocketFrame(false, 0, utf8("hel")), new ContinuationWebSocketFrame(true, 0, utf8("lo")));
        assertEquals(List.of("text hello"), session.events);
    }

    @Test
    void aPingIsAnsweredWithAPongCarryingItsData() {
        send(new PingWebSocketFrame(utf8("are you there")));
        List<WebSocketFrame> frames = received();
        assertInstanceOf(PongWebSocketFrame.class, frames.get(0));
        assertEquals("are you there", frames.get(0).content().toString(StandardCharsets.UTF_8));
        frames.forEach(ReferenceCountUtil::release);
        assertEquals(List.of(), session.events, "a ping is no event");
    }

    @Test
    void aMessageOverTheLimitAfterJoiningItsFragmentsClosesWith1009() {
        send(new TextWebSocketFrame(false, 0, utf8("x".repeat(40))), new ContinuationWebSocketFrame(true, 0,
                utf8("y".repeat(40))));
        assertClosedWith(1009);
        send(new CloseWebSocketFrame(1009, ""));
        assertFalse(server.isOpen(), "the client's answer closes the connection");
        assertEquals(List.of("closed 1009"), session.events);
    }

    @Test
    void aSingleCompressedFrameThatInflatesPastTheLimitClosesWith1009() {
        installWithDeflate(SETTINGS);
        send(new TextWebSocketFrame(utf8("x".repeat(65))));
        assertClosedWith(1009);
        send(new CloseWebSocketFrame(1009, ""));
        assertFalse(server.isOpen(), "the client's answer closes the connection");
        assertEquals(List.of("closed 1009"), session.events, "the message never reached the session");
    }

    /** Half a MiB of one letter is some 500 bytes compressed, under the frame limit; it is never inflated whole. */
    @Test
    void aCompressedFrameThatWouldInflateFarPastTheLimitClosesWith1009() {
        installWithDeflate(new WebSocketSettings(1024, 1 << 20, Duration.ZERO, 10));
        send(new BinaryWebSocketFrame(utf8("x".repeat(512 * 1024))));
        assertClosedWith(1009);
        assertEquals(List.of(), session.events, "the message never reached the session");
    }

    @Test
    void compressedFragmentsThatInflatePastTheLimitTogetherCloseWith1009() {
        installWithDeflate(SETTINGS);
        send(new TextWebSocketFrame(false, 0, utf8("x".repeat(40))), new ContinuationWebSocketFrame(true, 0,
                utf8("y".repeat(40))));
        assertClosedWith(1009);
        assertEquals(List.of(), session.events, "the message never reached the session");
    }

    @Test
    void aCompressedMessageOfExactlyTheLimitReachesTheSession() {
        installWithDeflate(SETTINGS);
        send(new TextWebSocketFrame(utf8("x".repeat(64))));
        assertEquals(List.of("text " + "x".repeat(64)), session.events);
    }

    @Test
    void textThatIsNotUtf8ClosesWith1007() {
        send(new TextWebSocketFrame(Unpooled.wrappedBuffer(new byte[] {(byte) 0xC3, 0x28})));
        assertClosedWith(1007);
        assertFalse(server.isOpen());
        assertEquals(List.of("closed 1007"), session.events);
    }

    @Test
    void aClientsCloseIsAnsweredWithItsCodeWhichTheSessionHears() {
        send(new CloseWebSocketFrame(4001, "bye"));
        assertClosedWith(4001);
        assertFalse(server.isOpen());
        assertEquals(List.of("closed 4001"), session.events);
    }

    @Test
    void whatTheHubSendsLeavesAsOneFrameEachAndItsCloseWaitsForTheClientsAnswer() {
        held.send(false, utf8("one"));
        held.send(true, utf8("two"));
        held.close(4000, "done");
        List<WebSocketFrame> frames = received();
        assertEquals(List.of("TextWebSocketFrame one", "BinaryWebSocketFrame two", "CloseWebSocketFrame done"),
                frames.stream().map(f -> f.getClass().getSimpleName() + " " + (f instanceof CloseWebSocketFrame c
                        ? c.reasonText() : f.content().toString(StandardCharsets.UTF_8))).toList());
        frames.forEach(ReferenceCountUtil::release);
        held.send(false, utf8("after close"));
        assertEquals(List.of(), received(), "nothing is sent once the closing handshake began");
        send(new CloseWebSocketFrame(4000, ""));
        assertFalse(server.isOpen());
        assertEquals(List.of("closed 4000"), session.events);
    }

    /** The server's first frame out is a close with {@code code}; every frame it sent is released. */
    private void assertClosedWith(int code) {
        List<WebSocketFrame> frames = received();
        try {
            assertEquals(code, assertInstanceOf(CloseWebSocketFrame.class, frames.get(0)).statusCode());
        } finally {
            frames.forEach(ReferenceCountUtil::release);
        }
    }
}
