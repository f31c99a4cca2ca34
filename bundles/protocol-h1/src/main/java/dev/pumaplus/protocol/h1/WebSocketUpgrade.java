/*
 * The HTTP/1.1 side of WebSockets the host holds (docs/WEBSOCKETS.md), between parse and respond: tells an
 * RFC 6455 handshake request from others, watches its response for the app's accept, and turns the
 * accepted connection's pipeline from HTTP/1.1 into the WebSocket codec the hub installs (a HeldWebSocket last).
 */
package dev.pumaplus.protocol.h1;

import dev.pumaplus.spi.Exchange;
import dev.pumaplus.spi.RequestHead;
import dev.pumaplus.spi.ResponseSink;
import dev.pumaplus.spi.WebSocketHub;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.FileRegion;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketServerExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One per listener, shared by its connections (immutable). {@link #isHandshake} picks the requests that go
 * to {@link WebSocketHub#offer} instead of the queue; {@link #sink} wraps their response; {@link #install}
 * runs on the connection's event loop once the app accepted.
 *
 * <p>The handshake's 101 is written by the host, never taken from the app: the app's accept response only
 * says yes, the routing, and optionally the subprotocol ({@code sec-websocket-protocol}). permessage-deflate
 * (RFC 7692) is agreed when the client offers it ({@link WebSocketHub#negotiateDeflate}).
 */
final class WebSocketUpgrade {

    private final WebSocketHub hub;

    WebSocketUpgrade(WebSocketHub hub) {
        this.hub = hub;
    }

    WebSocketHub hub() {
        return hub;
    }

    /** RFC 6455 §4.2.1: GET, HTTP/1.1, Upgrade: websocket, Connection: upgrade, a key, version 13. */
    static boolean isHandshake(HttpRequest request) {
        HttpHeaders headers = request.headers();
        return HttpMethod.GET.equals(request.method())
                && headers.containsValue(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET, true)
                && headers.containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE, true)
                && headers.contains(HttpHeaderNames.SEC_WEBSOCKET_KEY)
                && "13".equals(headers.get(HttpHeaderNames.SEC_WEBSOCKET_VERSION));
    }

    /**
     * The sink for a handshake request's response: an accept (101 with {@code puma-plus-websocket}) goes to
     * {@code connection}'s {@link H1ConnectionHandler#webSocketAccepted} on its event loop; a 101 without a
     * valid one is answered 502; anything else goes to {@code response} unchanged.
     */
    ResponseSink sink(PendingResponse response, H1ConnectionHandler connection, ChannelHandlerContext ctx) {
        return new AcceptSink(response, connection, ctx);
    }

    /**
     * Turns {@code ctx}'s connection into a held WebSocket: writes the 101 through {@code response}, replaces
     * the HTTP/1.1 handlers named {@code http1}, in that order (the HTTP decoder last, so the bytes it still
     * holds reach the WebSocket decoder) and hands the connection to the hub. Event loop.
     */
    void install(ChannelHandlerContext ctx, PendingResponse response, RequestHead head,
                 List<Map.Entry<String, String>> appHeaders, boolean sticky, Exchange upgrade, List<String> http1) {
        List<Map.Entry<String, String>> headers = new ArrayList<>(5);
        headers.add(Map.entry("Upgrade", "websocket"));
        headers.add(Map.entry("Connection", "Upgrade"));
        headers.add(Map.entry("Sec-WebSocket-Accept", WebSocketHub.acceptKey(header(head, "sec-websocket-key"))));
        for (Map.Entry<String, String> h : appHeaders) {
            if (h.getKey().equalsIgnoreCase("sec-websocket-protocol")) {
                headers.add(Map.entry("Sec-WebSocket-Protocol", h.getValue()));
            }
        }
        WebSocketServerExtension deflate = hub.negotiateDeflate(head, headers);
        response.hijacked(101, headers);
        ctx.flush();
        // In, and held (its open event queued), before the HTTP handlers leave: the decoder hands on the bytes
        // it holds when it is removed, and they may already be a message.
        hub.install(ctx.pipeline(), ctx.name(), deflate, upgrade, sticky);
        for (String name : http1) {
            if (ctx.pipeline().get(name) != null) {
                ctx.pipeline().remove(name);
            }
        }
    }

    private static String header(RequestHead head, String name) {
        for (Map.Entry<String, String> h : head.headers()) {
            if (h.getKey().equalsIgnoreCase(name)) {
                return h.getValue();
            }
        }
        return null;
    }

    /**
     * A handshake request's sink in front of its {@link PendingResponse}. Host threads call it as any sink;
     * the accept hops to the connection's event loop, where {@code submit} ran and kept the upgrade's exchange.
     */
    private static final class AcceptSink extends ForwardingSink {
        private final PendingResponse response;
        private final H1ConnectionHandler connection;
        private final ChannelHandlerContext ctx;
        /** The response was taken here (an accept, or a 101 answered 502): what follows of it is dropped. */
        private volatile boolean taken;

        AcceptSink(PendingResponse response, H1ConnectionHandler connection, ChannelHandlerContext ctx) {
            super(response);
            this.response = response;
            this.connection = connection;
            this.ctx = ctx;
        }

        @Override
        public void head(int status, List<Map.Entry<String, String>> headers, boolean endOfStream) {
            if (status != 101) {
                response.head(status, headers, endOfStream);
                return;
            }
            taken = true;
            Boolean sticky = WebSocketHub.routing(headers);
            if (sticky == null) {
                response.fail(502, "101 without a valid puma-plus-websocket header", false);
            } else {
                ctx.executor().execute(() -> connection.webSocketAccepted(response, headers, sticky));
            }
        }

        @Override
        public boolean body(ByteBuf chunk, boolean endOfStream) {
            if (taken) {
                chunk.release();
                return true;
            }
            return response.body(chunk, endOfStream);
        }

        @Override
        public void fail(int status, String reason, boolean headSent) {
            if (!taken) {
                response.fail(status, reason, headSent);
            }
        }

        @Override
        public boolean file(FileRegion region, boolean endOfStream) {
            if (taken) {
                region.release();
                return true;
            }
            return response.file(region, endOfStream);
        }
    }
}
