/*
 * An HTTP/2 connection's idle and write timeouts (accept → parse, respond), on a server pipeline fed by a
 * real client frame codec: bytes are carried between two EmbeddedChannels, and the server's clock is moved
 * by hand, never slept.
 */
package dev.pumaplus.protocol.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2PingFrame;
import io.netty.handler.codec.http2.Http2ChannelDuplexHandler;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2GoAwayFrame;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class H2TimeoutHandlerTest {

    private static final long IDLE = 5;
    private static final long WRITE = 3;

    private EmbeddedChannel server;
    private EmbeddedChannel client;
    private Client frames;

    /** Answers every request at once: HEADERS 200, then "hello" and END_STREAM. */
    private static final class Answer extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof Http2HeadersFrame request && request.isEndStream()) {
                ctx.write(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status("200")).stream(request.stream()));
                ctx.writeAndFlush(new DefaultHttp2DataFrame(
                        Unpooled.copiedBuffer("hello", StandardCharsets.US_ASCII), true).stream(request.stream()));
            }
            ReferenceCountUtil.release(msg);
        }
    }

    /** The client's end: opens streams, records what the server sent. */
    private static final class Client extends Http2ChannelDuplexHandler {
        final List<Object> received = new ArrayList<>();
        ChannelHandlerContext ctx;

        @Override
        public void handlerAdded0(ChannelHandlerContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof Http2DataFrame data) {
                received.add(data.content().toString(StandardCharsets.US_ASCII));
            } else if (msg instanceof Http2GoAwayFrame goAway) {
                received.add(goAway.errorCode()); // the frame itself is released below
            } else {
                received.add(msg.getClass().getSimpleName());
            }
            ReferenceCountUtil.release(msg);
        }

        void get() {
            Http2FrameStream stream = newStream();
            ctx.writeAndFlush(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().method("GET").scheme("http")
                    .path("/").authority("x"), true).stream(stream));
        }

        /** The error code of the server's GOAWAY, or null when none came. */
        Long goAway() {
            return received.stream().filter(Long.class::isInstance).map(Long.class::cast).findFirst().orElse(null);
        }
    }

    private void open(Http2Settings clientSettings) {
        Http2FrameCodec codec = Http2FrameCodecBuilder.forServer().build();
        server = new EmbeddedChannel();
        server.freezeTime();
        server.pipeline().addLast(codec, new Answer());
        server.pipeline().addFirst(new H2TimeoutHandler(codec.connection(),
                new H2Config(100, 112 * 1024, 200, 30, -1, IDLE, WRITE, 0)));
        frames = new Client();
        client = new EmbeddedChannel(Http2FrameCodecBuilder.forClient().initialSettings(clientSettings).build(), frames);
        exchange();
    }

    /** Carries bytes both ways until neither side has anything left to send. */
    private void exchange() {
        boolean moved = true;
        while (moved) {
            moved = carry(client, server) | carry(server, client);
        }
    }

    private static boolean carry(EmbeddedChannel from, EmbeddedChannel to) {
        from.runPendingTasks();
        boolean moved = false;
        ByteBuf bytes;
        while ((bytes = from.readOutbound()) != null) {
            moved = true;
            if (to.isOpen()) {
                to.writeInbound(bytes);
            } else {
                bytes.release();
            }
        }
        return moved;
    }

    /** Moves the server's clock a second at a time, as a real one passes, running what falls due. */
    private void advance(long seconds) {
        for (long i = 0; i < seconds; i++) {
            server.advanceTimeBy(1, TimeUnit.SECONDS);
            server.runScheduledPendingTasks();
            exchange();
        }
    }

    @AfterEach
    void close() {
        if (server != null) {
            server.finishAndReleaseAll();
        }
        if (client != null) {
            client.finishAndReleaseAll();
        }
    }

    @Test
    void connectionWithNoStreamGetsGoAwayNoErrorAtTheIdleTimeoutAndCloses() {
        open(Http2Settings.defaultSettings());
        advance(IDLE - 1);
        assertTrue(server.isOpen());
        advance(2);
        assertNotNull(frames.goAway(), "GOAWAY at the idle timeout: " + frames.received);
        assertEquals(Http2Error.NO_ERROR.code(), (long) frames.goAway());
        assertFalse(server.isOpen());
    }

    @Test
    void pingsDoNotKeepAConnectionWithNoStreamOpen() {
        open(Http2Settings.defaultSettings());
        for (int second = 0; second < IDLE + 1 && server.isOpen(); second++) {
            frames.ctx.writeAndFlush(new DefaultHttp2PingFrame(second));
            advance(1);
        }
        assertNotNull(frames.goAway(), "pings kept the idle connection open: " + frames.received);
        assertFalse(server.isOpen());
    }

    @Test
    void idleClockRestartsWhenTheLastStreamCloses() {
        open(Http2Settings.defaultSettings());
        advance(IDLE - 1);
        frames.get();
        exchange();
        assertTrue(frames.received.contains("hello"), "answered: " + frames.received);
        advance(IDLE - 1);
        assertTrue(server.isOpen(), "idle for less than the timeout since the stream closed");
        advance(2);
        assertFalse(server.isOpen());
    }

    @Test
    void clientThatNeverOpensItsWindowIsClosedWithEnhanceYourCalmAtTheWriteTimeout() {
        open(Http2Settings.defaultSettings().initialWindowSize(0));
        frames.get();
        exchange();
        assertFalse(frames.received.contains("hello"), "no DATA into a zero window");
        advance(WRITE);
        assertTrue(server.isOpen(), "waiting for less than the write timeout (the first check saw it at 1 s)");
        assertNull(frames.goAway());
        advance(1);
        assertNotNull(frames.goAway(), "GOAWAY at the write timeout: " + frames.received);
        assertEquals(Http2Error.ENHANCE_YOUR_CALM.code(), (long) frames.goAway());
        assertFalse(server.isOpen());
    }

    @Test
    void openStreamWithNothingWaitingIsNeitherIdleNorStalled() {
        open(Http2Settings.defaultSettings());
        server.pipeline().remove(Answer.class); // the app takes its time: no response data yet
        frames.get();
        exchange();
        advance(IDLE + WRITE);
        assertTrue(server.isOpen(), "an open stream whose app is still working must not be cut");
    }
}
