/*
 * One HTTP/2 stream = one request (parse → queue → ... → respond): turns the stream's HEADERS into a
 * RequestHead (pseudo-headers mapped so the Rack env is the one HTTP/1.1 gives), feeds its DATA through a
 * RequestBodyBuffer, which submits it to the host's RequestQueue with the connection as fairness key, and
 * writes the response the host delivers as HEADERS and DATA frames, each flushed as it arrives.
 */
package dev.pumaplus.protocol.h2;

import dev.pumaplus.spi.Exchange;
import dev.pumaplus.spi.HeaderFields;
import dev.pumaplus.spi.RequestBodyBuffer;
import dev.pumaplus.spi.RequestHead;
import dev.pumaplus.spi.RequestQueue;
import dev.pumaplus.spi.ResponseBackpressure;
import dev.pumaplus.spi.ResponseSink;
import dev.pumaplus.spi.WebSocketHub;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.nio.channels.FileChannel;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;

/**
 * Sits on an {@code Http2StreamChannel} made by Netty's multiplexer. The request is submitted once its
 * {@link RequestBodyBuffer} holds the whole body (a large one spooled to a file), so a stream whose body
 * trickles in holds no slot; one that brings no body byte for {@code first_data_timeout} is answered 408.
 * Request trailers end the body and are not passed on (the frame contract has no place for them).
 *
 * <p>Env mapping: {@code :authority} becomes a {@code host} header in its place (a separate {@code host}
 * header is then ignored, RFC 9113 section 8.3.1), {@code :path} the target, {@code :method} the method;
 * the scheme is the connection's ({@code https} after TLS, {@code http} for h2c), never the client's
 * {@code :scheme}, exactly as HTTP/1.1 does. SERVER_PROTOCOL is {@code HTTP/2}. Cookie headers, which h2
 * clients may split, are joined by the host's env encoder with {@code "; "}.
 *
 * <p>Threading: inbound methods run on the stream's event loop (the connection's); the {@link ResponseSink}
 * methods are called on a worker link's thread and hop there.
 */
final class H2StreamHandler extends ChannelInboundHandlerAdapter
        implements ResponseSink, RequestBodyBuffer.Submitter {

    private final RequestQueue queue;
    private final H2Config config;
    private final String scheme;
    private final String altSvc;
    /** WebSockets over extended CONNECT, or null (none offered). */
    private final H2WebSockets webSockets;
    private Channel stream;
    private ChannelHandlerContext context;
    /** This stream is an extended CONNECT for a WebSocket, offered to the hub (event loop). */
    private boolean webSocket;
    /** The app accepted or botched the WebSocket: what follows of its response is dropped. */
    private volatile boolean webSocketAnswered;

    // request side (event loop)
    private RequestHead head;
    private RequestBodyBuffer body;
    private boolean requestDone;
    private boolean headRequest;

    // response side
    private volatile Exchange exchange;
    private boolean headWritten; // event loop
    private boolean complete; // event loop
    private boolean bodyAllowed = true; // event loop
    private final ResponseBackpressure backpressure;

    H2StreamHandler(RequestQueue queue, H2Config config, String scheme, String altSvc, H2WebSockets webSockets) {
        this.queue = queue;
        this.backpressure = queue.backpressure();
        this.config = config;
        this.scheme = scheme;
        this.altSvc = altSvc;
        this.webSockets = webSockets;
    }

    // ---- inbound: parse → queue ----

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (msg instanceof Http2HeadersFrame headers) {
                if (head == null) {
                    onHeaders(headers);
                } else if (headers.isEndStream()) {
                    onData(Unpooled.EMPTY_BUFFER, true); // trailers: the body is complete
                }
            } else if (msg instanceof Http2DataFrame data) {
                onData(data.content().retain(), data.isEndStream());
            } else if (msg instanceof Http2ResetFrame) {
                cancel();
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void onHeaders(Http2HeadersFrame frame) {
        long now = System.nanoTime();
        Http2Headers h = frame.headers();
        webSocket = webSockets != null && H2WebSockets.isExtendedConnect(h);
        // The app sees an extended CONNECT as the GET an HTTP/1.1 handshake is (docs/WEBSOCKETS.md).
        String method = webSocket ? "GET" : string(h.method());
        String path = string(h.path());
        if (method == null || path == null) {
            reset(Http2Error.PROTOCOL_ERROR); // Netty validates this; CONNECT without :path lands here
            return;
        }
        headRequest = method.equals("HEAD");
        List<Map.Entry<String, String>> headers = new ArrayList<>(h.size());
        CharSequence authority = h.authority();
        if (authority != null) {
            headers.add(Map.entry("host", authority.toString()));
        }
        long contentLength = -1;
        for (Map.Entry<CharSequence, CharSequence> e : h) {
            CharSequence name = e.getKey();
            if (name.length() > 0 && name.charAt(0) == ':') {
                continue;
            }
            String n = name.toString();
            if (authority != null && n.equals("host")) {
                continue;
            }
            String v = e.getValue().toString();
            if (n.equals("content-length") && contentLength < 0) {
                try {
                    contentLength = Long.parseLong(v.trim());
                } catch (NumberFormatException ignored) {
                    // Netty's header validation refuses a bad content-length before we get here
                }
            }
            headers.add(Map.entry(n, v));
        }
        long limit = config.contentLengthLimit();
        if (limit > 0 && contentLength > limit) {
            requestDone = true;
            answer(413);
            return;
        }
        InetSocketAddress local = inet(stream.parent().localAddress());
        InetSocketAddress remote = inet(stream.parent().remoteAddress());
        head = new RequestHead(method, path, "HTTP/2", scheme, local, remote, Collections.unmodifiableList(headers), now,
                now);
        if (webSocket) {
            // The stream stays open for the WebSocket: the handshake is complete with its HEADERS.
            requestDone = true;
            exchange = webSockets.hub().offer(stream.parent(), head, this);
            return;
        }
        body = queue.bodyBuffer(limit, this);
        if (frame.isEndStream()) {
            onData(Unpooled.EMPTY_BUFFER, true);
        } else {
            body.watch(stream.eventLoop(), config.bodyTimeoutNanos(), () -> {
                if (!requestDone) {
                    requestDone = true;
                    body.abandon();
                    answer(408); // the client stopped sending its body
                }
            });
            if (h.contains("expect", "100-continue", true)) {
                // The client waits for this before sending the body (curl does for large uploads), as in
                // HTTP/1.1.
                stream.writeAndFlush(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status("100"), false));
            }
        }
    }

    private void onData(ByteBuf bytes, boolean last) {
        if (requestDone || head == null) {
            bytes.release();
            return;
        }
        requestDone = last;
        switch (body.add(bytes, last)) {
            case READ -> {
            }
            case TOO_LARGE -> {
                requestDone = true;
                answer(413); // never submitted: the body is complete before the request is
            }
            case REFUSED -> {
                requestDone = true;
                answer(503); // the host refused (e.g. it is shutting down): answer, never hang
            }
        }
    }

    /** {@inheritDoc} Called by the stream's {@link RequestBodyBuffer}; the connection is the fairness key. */
    @Override
    public Exchange submit(ByteBuf bytes, FileChannel bodyFile) {
        exchange = queue.submit(stream.parent(), head, bytes, bodyFile, this);
        return exchange;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        stream = ctx.channel();
        context = ctx;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        cancel();
        super.channelInactive(ctx);
    }

    /**
     * A stream error the codec found in what the client sent (RFC 9113 section 5.4.2) passes here first;
     * the multiplexer then resets the stream with that error's code, and the stream's close cancels the
     * exchange. Closing the stream here would answer CANCEL instead, or nothing at all once the client had
     * ended its side. Any other exception is this handler's own failure: INTERNAL_ERROR.
     */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (Http2CodecUtil.getEmbeddedHttp2Exception(cause) == null) {
            reset(Http2Error.INTERNAL_ERROR);
        }
    }

    /** The stream is gone (reset by the client, connection closed): the host forgets the request. */
    private void cancel() {
        if (body != null) {
            body.abandon();
        }
        Exchange ex = exchange;
        if (ex != null && !complete) {
            ex.cancel();
        }
        complete = true;
    }

    // ---- outbound: respond (ResponseSink, called on a worker link's thread) ----

    @Override
    public void head(int status, List<Map.Entry<String, String>> headers, boolean endOfStream) {
        if (webSocket && status == 101) {
            webSocketAnswered = true;
            Boolean sticky = WebSocketHub.routing(headers);
            onEventLoop(() -> {
                if (sticky == null) {
                    answer(502); // a 101 without a valid puma-plus-websocket header
                } else if (!complete && !headWritten && stream.isActive()) {
                    headWritten = true;
                    complete = true;
                    webSockets.accept(stream, context.name(), head, headers, sticky, exchange);
                }
            });
            return;
        }
        onEventLoop(() -> writeHead(status, headers, endOfStream));
    }

    /** {@inheritDoc} Pauses while more than 1 MiB of body waits for the client ({@link ResponseBackpressure}). */
    @Override
    public boolean body(ByteBuf chunk, boolean endOfStream) {
        if (webSocketAnswered) {
            chunk.release(); // the rest of an accept response, which the client never sees
            return true;
        }
        long bytes = chunk.readableBytes();
        long unwritten = backpressure.accepted(bytes);
        if (onEventLoop(() -> writeBody(chunk, endOfStream, bytes))) {
            return backpressure.pause(unwritten, endOfStream) == ResponseBackpressure.Pause.NONE;
        }
        chunk.release();
        backpressure.written(bytes);
        return true; // the stream is gone: nothing to pause for
    }

    @Override
    public void earlyHints(List<Map.Entry<String, String>> headers) {
        onEventLoop(() -> writeEarlyHints(headers));
    }

    @Override
    public void fail(int status, String reason, boolean headSent) {
        if (webSocketAnswered) {
            return;
        }
        onEventLoop(() -> {
            if (headWritten) {
                complete = true;
                reset(Http2Error.INTERNAL_ERROR);
            } else {
                answer(status);
            }
        });
    }

    private void writeHead(int status, List<Map.Entry<String, String>> headers, boolean endOfStream) {
        if (complete || headWritten) {
            return;
        }
        bodyAllowed = !headRequest && status >= 200 && status != 204 && status != 304;
        Http2Headers out = responseHeaders(status, headers);
        if (altSvc != null) {
            out.add("alt-svc", altSvc);
        }
        headWritten = true;
        write(new DefaultHttp2HeadersFrame(out, endOfStream), endOfStream, 0);
    }

    /** A 103 Early Hints HEADERS frame (not ending the stream), only while the final head is still to come. */
    private void writeEarlyHints(List<Map.Entry<String, String>> headers) {
        if (complete || headWritten) {
            return;
        }
        stream.writeAndFlush(new DefaultHttp2HeadersFrame(responseHeaders(103, headers), false));
    }

    /** The app's headers as HTTP/2 allows them: lower-case names, no connection-specific fields. */
    private static Http2Headers responseHeaders(int status, List<Map.Entry<String, String>> headers) {
        Http2Headers out = new DefaultHttp2Headers(false, headers.size() + 2);
        out.status(Integer.toString(status));
        for (Map.Entry<String, String> header : headers) {
            String name = header.getKey().toLowerCase(Locale.ROOT);
            String value = header.getValue();
            if (HeaderFields.CONNECTION_SPECIFIC.contains(name)) {
                continue; // never let an app send what HTTP/2 forbids
            }
            if (name.equals("content-length") && (status < 200 || status == 204)) {
                continue;
            }
            out.add(name, value);
        }
        return out;
    }

    private void writeBody(ByteBuf chunk, boolean endOfStream, long bytes) {
        if (complete || !headWritten) {
            chunk.release();
            written(bytes);
            return;
        }
        if (!bodyAllowed) {
            chunk.release();
            written(bytes);
            if (endOfStream) {
                write(new DefaultHttp2DataFrame(Unpooled.EMPTY_BUFFER, true), true, 0);
            }
            return;
        }
        write(new DefaultHttp2DataFrame(chunk, endOfStream), endOfStream, bytes);
    }

    /** Writes and flushes one frame; the final one reports T6 when it has been written. */
    private void write(Object frame, boolean last, long bytes) {
        if (last) {
            complete = true;
        }
        Exchange ex = exchange;
        stream.writeAndFlush(frame).addListener((ChannelFutureListener) future -> {
            written(bytes);
            if (last && future.isSuccess() && ex != null) {
                ex.responseSent(System.nanoTime());
            }
        });
    }

    /** Body bytes left the count; resumes the host's reading of the response below the low-water mark. */
    private void written(long bytes) {
        if (backpressure.written(bytes)) {
            Exchange ex = exchange;
            if (ex != null) {
                ex.resumeResponse();
            }
        }
    }

    /** A response made here (413, 503, or the host's failure status before any head): short text body. */
    private void answer(int status) {
        if (complete || headWritten) {
            return;
        }
        headWritten = true;
        byte[] text = (status + " " + HttpResponseStatus.valueOf(status).reasonPhrase() + "\n")
                .getBytes(StandardCharsets.US_ASCII);
        Http2Headers out = new DefaultHttp2Headers().status(Integer.toString(status))
                .add("content-type", "text/plain").add("content-length", Integer.toString(text.length));
        if (headRequest) {
            write(new DefaultHttp2HeadersFrame(out, true), true, 0);
            return;
        }
        stream.write(new DefaultHttp2HeadersFrame(out, false));
        write(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(text), true), true, 0);
        if (!requestDone) {
            stream.config().setAutoRead(true); // discard the rest of the body
        }
    }

    private void reset(Http2Error error) {
        complete = true;
        stream.writeAndFlush(new DefaultHttp2ResetFrame(error));
    }

    /** Runs {@code task} on the stream's event loop; false if that loop is shut down (the stream is gone). */
    private boolean onEventLoop(Runnable task) {
        try {
            stream.eventLoop().execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    private static String string(CharSequence s) {
        return s == null ? null : s.toString();
    }

    private static InetSocketAddress inet(SocketAddress address) {
        return address instanceof InetSocketAddress inet ? inet : null;
    }
}
