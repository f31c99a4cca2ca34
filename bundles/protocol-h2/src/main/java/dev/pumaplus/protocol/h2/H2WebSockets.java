/*
 * WebSockets the host holds over HTTP/2 (RFC 8441, docs/WEBSOCKETS.md), between parse and respond: tells
 * an extended CONNECT from other requests, and on the app's accept answers it 200 and turns the stream
 * into a WebSocket: its DATA frames carry the RFC 6455 frames that the codec the hub installs (a HeldWebSocket last) reads.
 */
package dev.pumaplus.protocol.h2;

import dev.pumaplus.spi.Exchange;
import dev.pumaplus.spi.RequestHead;
import dev.pumaplus.spi.WebSocketHub;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketServerExtension;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One per bundle (immutable), when the host offers its {@link WebSocketHub}: the connections then advertise
 * SETTINGS_ENABLE_CONNECT_PROTOCOL. The app sees the extended CONNECT as the same request an HTTP/1.1
 * handshake is — {@code GET} of the {@code :path}, SERVER_PROTOCOL {@code HTTP/2}, marked
 * {@code puma_plus.websocket.event = upgrade} — so one route serves both; its 101 accept becomes the
 * stream's {@code :status 200}.
 */
final class H2WebSockets {

    private final WebSocketHub hub;

    H2WebSockets(WebSocketHub hub) {
        this.hub = hub;
    }

    WebSocketHub hub() {
        return hub;
    }

    /** RFC 8441 §4: {@code :method CONNECT} with {@code :protocol websocket}. */
    static boolean isExtendedConnect(Http2Headers headers) {
        CharSequence protocol = headers.get(Http2Headers.PseudoHeaderName.PROTOCOL.value());
        return headers.method() != null && "CONNECT".contentEquals(headers.method()) && protocol != null
                && "websocket".contentEquals(protocol);
    }

    /**
     * The app accepted the WebSocket on {@code stream} (whose handler named {@code streamHandler} leaves):
     * answers 200 with the subprotocol and the agreed extension, puts the codec on the stream and hands it
     * to the hub. Event loop.
     */
    void accept(Channel stream, String streamHandler, RequestHead head, List<Map.Entry<String, String>> appHeaders,
                boolean sticky, Exchange upgrade) {
        List<Map.Entry<String, String>> extra = new ArrayList<>(2);
        for (Map.Entry<String, String> h : appHeaders) {
            if (h.getKey().equalsIgnoreCase("sec-websocket-protocol")) {
                extra.add(Map.entry("sec-websocket-protocol", h.getValue()));
            }
        }
        WebSocketServerExtension deflate = hub.negotiateDeflate(head, extra);
        Http2Headers out = new DefaultHttp2Headers().status("200");
        for (Map.Entry<String, String> h : extra) {
            out.add(h.getKey().toLowerCase(java.util.Locale.ROOT), h.getValue());
        }
        stream.writeAndFlush(new DefaultHttp2HeadersFrame(out, false));
        stream.pipeline().addAfter(streamHandler, "ws-stream-bytes", new StreamBytes());
        hub.install(stream.pipeline(), "ws-stream-bytes", deflate, upgrade, sticky);
        stream.pipeline().remove(streamHandler);
    }

    /**
     * The stream as a byte stream for the WebSocket codec: DATA frames in, their bytes on; bytes out as DATA
     * frames. A reset closes the stream; closing it ends the stream with an empty DATA frame first.
     */
    private static final class StreamBytes extends ChannelDuplexHandler {
        private boolean ended;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof Http2DataFrame data) {
                ByteBuf content = data.content().retain();
                data.release();
                ctx.fireChannelRead(content);
                if (data.isEndStream()) {
                    ctx.close(); // the client ended its side without a close frame
                }
            } else {
                ReferenceCountUtil.release(msg);
                if (msg instanceof Http2ResetFrame) {
                    ctx.close();
                }
            }
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (msg instanceof ByteBuf bytes) {
                ctx.write(new DefaultHttp2DataFrame(bytes, false), promise);
            } else {
                ctx.write(msg, promise);
            }
        }

        @Override
        public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
            if (ended || !ctx.channel().isActive()) {
                ctx.close(promise);
                return;
            }
            ended = true;
            ctx.writeAndFlush(new DefaultHttp2DataFrame(Unpooled.EMPTY_BUFFER, true))
                    .addListener((ChannelFutureListener) f -> ctx.close(promise));
        }
    }
}
