/*
 * The operator's live page, served by the control app beside the request path: GET /dashboard is one HTML
 * page, /dashboard/uPlot.* the charting library vendored with it, and /dashboard/events a Server-Sent Events
 * stream that pushes one DashboardFeed snapshot a second from the control app's thread.
 */
package dev.pumaplus.host.control;

import dev.pumaplus.host.queue.QueueReadout;
import dev.pumaplus.spi.Autoscaler;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Paths ({@link #handles}): {@code /dashboard} (and {@code /dashboard/}) the page, {@code /dashboard/}
 * {@value #SCRIPT} and {@value #STYLE} the library, {@code /dashboard/events} the stream; any other path
 * under {@code /dashboard/} is 404, a method other than GET (or HEAD, except on the stream) 405. The caller
 * (the control app) has checked the token; the page passes its own query string on to the library and the
 * stream, so a {@code ?token=} it was opened with reaches them too.
 *
 * <p>The stream: {@code 200 text/event-stream}, chunked, {@code Cache-Control: no-store}; a {@code retry}
 * of 2 s for the browser's reconnect, then an event {@code data: {snapshot}} at once and every second after
 * (docs/CONTROL.md, "Dashboard"). The timer runs on the control app's thread (the stream handler's
 * executor) and is cancelled when the channel closes (the page went away, or the host stops): nothing
 * outlives the connection. A second that finds the channel not writable (a client that stopped reading)
 * sends nothing rather than queue snapshots in the host.
 *
 * <p>Threading: {@link #handle} runs on the control app's thread; the static files are read once,
 * when the class loads.
 */
final class Dashboard {

    private static final System.Logger LOG = System.getLogger(Dashboard.class.getName());

    static final String PATH = "/dashboard";
    static final String EVENTS = PATH + "/events";
    static final String SCRIPT = "uPlot.iife.min.js";
    static final String STYLE = "uPlot.min.css";
    /** Between two snapshots on a stream, ms. */
    static final long PERIOD_MS = 1000;

    /** Path → (content type, bytes) of the files served as they are. */
    private static final Map<String, Asset> ASSETS = Map.of(
            PATH, asset("dashboard.html", "text/html; charset=utf-8"),
            PATH + "/", asset("dashboard.html", "text/html; charset=utf-8"),
            PATH + "/" + SCRIPT, asset(SCRIPT, "text/javascript; charset=utf-8"),
            PATH + "/" + STYLE, asset(STYLE, "text/css; charset=utf-8"));

    private record Asset(String contentType, byte[] bytes) {
    }

    private final QueueReadout queue;
    private final Supplier<List<Autoscaler>> autoscalers;

    /** @param autoscalers the running autoscalers (empty when autoscaling is off); asked once a snapshot */
    Dashboard(QueueReadout queue, Supplier<List<Autoscaler>> autoscalers) {
        this.queue = queue;
        this.autoscalers = autoscalers;
    }

    /**
     * Answers a request for one of the dashboard's paths: a file through {@code reply} (which sets
     * Content-Length and keep-alive), or the stream, which it writes to {@code ctx} itself.
     */
    void handle(ChannelHandlerContext ctx, FullHttpRequest request, String path, Consumer<FullHttpResponse> reply) {
        boolean get = request.method().equals(HttpMethod.GET);
        if (path.equals(EVENTS)) {
            if (!get) {
                reply.accept(notAllowed("GET"));
            } else {
                stream(ctx, request);
            }
            return;
        }
        Asset asset = ASSETS.get(path);
        if (asset == null) {
            reply.accept(text(HttpResponseStatus.NOT_FOUND, "not found\n"));
        } else if (!get && !request.method().equals(HttpMethod.HEAD)) {
            reply.accept(notAllowed("GET, HEAD"));
        } else {
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                    Unpooled.wrappedBuffer(asset.bytes()));
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, asset.contentType());
            response.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-cache");
            reply.accept(response);
        }
    }

    private void stream(ChannelHandlerContext ctx, FullHttpRequest request) {
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        head.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream; charset=utf-8");
        head.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
        HttpUtil.setTransferEncodingChunked(head, true);
        HttpUtil.setKeepAlive(head, HttpUtil.isKeepAlive(request));
        ctx.write(head);
        ctx.writeAndFlush(chunk("retry: 2000\n\n")).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
        DashboardFeed feed = new DashboardFeed(queue, autoscalers);
        ScheduledFuture<?> timer = ctx.executor().scheduleAtFixedRate(() -> {
            if (!ctx.channel().isWritable()) {
                return;
            }
            try {
                ctx.writeAndFlush(chunk("data: " + feed.next(System.currentTimeMillis()) + "\n\n"))
                        .addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
            } catch (RuntimeException e) {
                // a timer task that throws is never run again: end the stream, the page reconnects
                LOG.log(System.Logger.Level.WARNING, "dashboard snapshot failed", e);
                ctx.close();
            }
        }, 0, PERIOD_MS, TimeUnit.MILLISECONDS);
        ctx.channel().closeFuture().addListener(closed -> timer.cancel(false));
    }

    private static DefaultHttpContent chunk(String text) {
        ByteBuf bytes = Unpooled.copiedBuffer(text, StandardCharsets.UTF_8);
        return new DefaultHttpContent(bytes);
    }

    private static FullHttpResponse notAllowed(String allow) {
        FullHttpResponse response = text(HttpResponseStatus.METHOD_NOT_ALLOWED, "method not allowed\n");
        response.headers().set(HttpHeaderNames.ALLOW, allow);
        return response;
    }

    private static FullHttpResponse text(HttpResponseStatus status, String body) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.TEXT_PLAIN + "; charset=utf-8");
        return response;
    }

    private static Asset asset(String name, String contentType) {
        try (InputStream in = Dashboard.class.getResourceAsStream("dashboard/" + name)) {
            if (in == null) {
                throw new IllegalStateException("dashboard/" + name + " is missing from the host jar");
            }
            return new Asset(contentType, in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
