/*
 * One HTTP/1.1 request from its parsed head until its body is read (parse → queue): the RequestHead it
 * becomes, the RequestBodyBuffer its body fills, and its submission to the host's RequestQueue (or, for a
 * WebSocket handshake, to the WebSocket hub) with its PendingResponse as the sink.
 */
package dev.pumaplus.protocol.h1;

import dev.pumaplus.spi.Exchange;
import dev.pumaplus.spi.RequestBodyBuffer;
import dev.pumaplus.spi.RequestHead;
import dev.pumaplus.spi.RequestQueue;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Created by {@link H1ConnectionHandler} for each request it takes; the handler feeds the body in
 * ({@link #add}) and drops this once the body is complete or abandoned. The body buffer calls
 * {@link #submit} when it holds the whole body (a large one spooled to a file). Event loop only.
 */
final class InboundRequest implements RequestBodyBuffer.Submitter {

    private static final InetSocketAddress UNIX_PEER = new InetSocketAddress("127.0.0.1", 0);

    private final ChannelHandlerContext ctx;
    private final RequestQueue queue;
    private final PendingResponse response;
    private final RequestHead head;
    private final RequestBodyBuffer body;
    /** The handshake's hub and connection when this is a WebSocket handshake the host holds; null otherwise. */
    private final WebSocketUpgrade webSockets;
    private final H1ConnectionHandler connection;
    /** The exchange, once submitted. */
    private Exchange exchange;

    /**
     * @param limitBytes the body size limit (0: none)
     * @param webSockets the hub that takes this request as a WebSocket handshake, or null for any other
     * @param connection the connection a WebSocket accept goes back to; unused for any other request
     */
    InboundRequest(ChannelHandlerContext ctx, RequestQueue queue, PendingResponse response, ParsedRequest parsed,
                   long limitBytes, WebSocketUpgrade webSockets, H1ConnectionHandler connection) {
        this.ctx = ctx;
        this.queue = queue;
        this.response = response;
        this.webSockets = webSockets;
        this.connection = connection;
        this.head = head(ctx, parsed.request(), parsed);
        this.body = queue.bodyBuffer(limitBytes, this);
    }

    PendingResponse response() {
        return response;
    }

    RequestHead head() {
        return head;
    }

    /** The exchange the request was submitted as; null before that. */
    Exchange exchange() {
        return exchange;
    }

    /**
     * Runs {@code stalled} when the body brings no byte for {@code timeoutNanos}; see
     * {@link RequestBodyBuffer#watch}.
     */
    void watch(long timeoutNanos, Runnable stalled) {
        body.watch(ctx.executor(), timeoutNanos, stalled);
    }

    /** Adds a piece of the body ({@code last}: its end); the buffer takes ownership of {@code piece}. */
    RequestBodyBuffer.Flow add(ByteBuf piece, boolean last) {
        return body.add(piece, last);
    }

    /**
     * Stops reading the body for good. The exchange is cancelled even when the response is already
     * complete: the host must not wait for body bytes that will never come.
     */
    void abandon() {
        body.abandon();
    }

    /** {@inheritDoc} Submits the request to the host with its response as the sink. */
    @Override
    public Exchange submit(ByteBuf bodyBytes, FileChannel bodyFile) {
        if (webSockets != null) {
            bodyBytes.release(); // a handshake is a GET: nothing to send
            if (bodyFile != null) {
                try {
                    bodyFile.close(); // unnamed: closing it frees its blocks
                } catch (java.io.IOException ignored) {
                    // nothing else to lose
                }
            }
            exchange = webSockets.hub().offer(ctx.channel(), head, webSockets.sink(response, connection, ctx));
        } else {
            exchange = queue.submit(ctx.channel(), head, bodyBytes, bodyFile, response);
        }
        response.submitted(exchange);
        return exchange;
    }

    private static RequestHead head(ChannelHandlerContext ctx, HttpRequest request, ParsedRequest parsed) {
        List<Map.Entry<String, String>> headers = new ArrayList<>(request.headers().size() + 1);
        // The authority the request names stands in the Host field (RFC 9112 §3.2.2: an absolute-form
        // target's wins over Host), added first when an HTTP/1.0 request had no Host, as h2 does :authority.
        String authority = parsed.authority();
        if (authority != null && !request.headers().contains(HttpHeaderNames.HOST)) {
            headers.add(Map.entry("Host", authority));
        }
        for (Iterator<Map.Entry<String, String>> it = request.headers().iteratorAsString(); it.hasNext(); ) {
            Map.Entry<String, String> h = it.next();
            boolean host = authority != null && h.getKey().equalsIgnoreCase("host");
            headers.add(Map.entry(h.getKey(), host ? authority : h.getValue()));
        }
        return new RequestHead(
                request.method().name(),
                request.uri(),
                request.protocolVersion().text(),
                ctx.pipeline().get(SslHandler.class) != null ? "https" : "http",
                inet(ctx.channel().localAddress()),
                peer(ctx.channel().remoteAddress()),
                Collections.unmodifiableList(headers), // read-only without copying the list again
                parsed.firstByteNanos(),
                parsed.headersParsedNanos());
    }

    private static InetSocketAddress inet(SocketAddress address) {
        return address instanceof InetSocketAddress inet ? inet : null;
    }

    /** The client's address; a unix:// bind's peer is 127.0.0.1, as puma gives REMOTE_ADDR there. */
    private static InetSocketAddress peer(SocketAddress address) {
        return address instanceof InetSocketAddress inet ? inet : UNIX_PEER;
    }
}
