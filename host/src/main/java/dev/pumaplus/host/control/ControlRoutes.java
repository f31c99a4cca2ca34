/*
 * The control app's route table: which path answers what, on which listener (Access), and how a route
 * answers (the /stats and /metrics reads, pumactl's verbs, the dashboard and /controller). Runs on the
 * control app's thread, never in a request's path.
 */
package dev.pumaplus.host.control;

import dev.pumaplus.host.framework.EmbeddedFelix;
import dev.pumaplus.host.queue.QueueReadout;
import dev.pumaplus.host.queue.WebSocketReadout;
import dev.pumaplus.spi.Autoscaler;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The one place that says what each listener serves (docs/CONTROL.md, "The control app"): {@link #route}
 * finds a path's route; {@link ControlApp}'s listeners decide whether the caller may reach it. PUBLIC
 * routes are also on the read-only metrics listener, without the token.
 *
 * <p>Threading: routes run on the control app's thread; {@link #actions} and {@link #felix} are set once
 * by the launcher's thread (volatile) and may arrive after the first request.
 */
final class ControlRoutes {

    /** Who may reach a route. */
    enum Access {
        /** Read-only and safe to publish: on the control listener (with its token) and the metrics listener. */
        PUBLIC,
        /** A read on the control listener only. */
        READ,
        /** Changes the server's state: control listener only, never from a browser page. */
        ACTION
    }

    /**
     * One route's handler: answers the request on {@code ctx} once, through {@link #send} or as a stream
     * it keeps writing to. Called on the control app's thread ({@code ctx.executor()}); must not block it.
     */
    interface Endpoint {
        void serve(ChannelHandlerContext ctx, FullHttpRequest request, QueryStringDecoder query) throws Exception;
    }

    /** {@code subtree}: the route also answers every path below its own ({@code /dashboard/...}). */
    record Route(Access access, boolean subtree, Endpoint endpoint) {
    }

    private final QueueReadout queue;
    private final StatsDocument stats;
    private final Dashboard dashboard;
    /** The only directory {@code POST /controller?jar=} loads from; null: swapping is refused. */
    private final Path controllerJarDir;
    private final Map<String, Route> routes;
    private volatile ControlApp.Actions actions;
    /** The OSGi runtime, for the autoscaler's /controller endpoint; null until {@link #felix} is called. */
    private volatile EmbeddedFelix felix;
    /** The hub's counts, for /metrics; null until {@link #webSockets} is called (no WebSocket families). */
    private volatile WebSocketReadout webSockets;

    ControlRoutes(QueueReadout queue, StatsDocument stats, Path controllerJarDir) {
        this.queue = queue;
        this.stats = stats;
        this.controllerJarDir = controllerJarDir;
        this.dashboard = new Dashboard(queue, () -> {
            EmbeddedFelix runtime = felix;
            return runtime == null ? List.of() : runtime.services(Autoscaler.class);
        });
        this.routes = routes();
    }

    /** Enables the lifecycle verbs (404 without). */
    void actions(ControlApp.Actions lifecycle) {
        this.actions = lifecycle;
    }

    /** The OSGi runtime: {@code /controller} reports and swaps the controller bundle. */
    void felix(EmbeddedFelix runtime) {
        this.felix = runtime;
    }

    /** The WebSocket hub's counts for {@code /metrics}. */
    void webSockets(WebSocketReadout readout) {
        this.webSockets = readout;
    }

    /** The route for {@code path}: an exact path, else the subtree route whose path is a prefix of it. */
    Route route(String path) {
        Route exact = routes.get(path);
        if (exact != null) {
            return exact;
        }
        for (Map.Entry<String, Route> e : routes.entrySet()) {
            if (e.getValue().subtree() && path.startsWith(e.getKey() + "/")) {
                return e.getValue();
            }
        }
        return null;
    }

    /**
     * The route table, the one place that says what each listener serves (docs/CONTROL.md, "The control app").
     * PUBLIC routes are also on the read-only metrics listener, without the token.
     */
    private Map<String, Route> routes() {
        Map<String, Route> table = new LinkedHashMap<>();
        table.put("/metrics", new Route(Access.PUBLIC, false, reading(this::metricsResponse)));
        table.put(Dashboard.PATH, new Route(Access.PUBLIC, true, (ctx, request, query) ->
                dashboard.handle(ctx, request, query.path(), response -> send(ctx, request, response))));
        table.put("/stats", new Route(Access.READ, false, reading(this::statsResponse)));
        table.put(ControllerEndpoint.PATH, new Route(Access.READ, false, (ctx, request, query) ->
                ControllerEndpoint.handle(felix, controllerJarDir, request, query, response -> send(ctx, request, response))));
        table.put("/restart", new Route(Access.ACTION, false, acting(ControlApp.Actions::restart)));
        table.put("/reload-config", new Route(Access.ACTION, false, acting(ControlApp.Actions::restart)));
        table.put("/phased-restart", new Route(Access.ACTION, false, acting(ControlApp.Actions::phasedRestart)));
        table.put("/refork", new Route(Access.ACTION, false, acting(ControlApp.Actions::refork)));
        table.put("/stop", new Route(Access.ACTION, false, acting(a -> a.stop(false))));
        table.put("/halt", new Route(Access.ACTION, false, acting(a -> a.stop(true))));
        return Collections.unmodifiableMap(table);
    }

    /** A read: GET or HEAD (else 405), answered with what {@code render} makes of the query. */
    private static Endpoint reading(Render render) {
        return (ctx, request, query) -> {
            if (!request.method().equals(HttpMethod.GET) && !request.method().equals(HttpMethod.HEAD)) {
                FullHttpResponse response = text(HttpResponseStatus.METHOD_NOT_ALLOWED, "method not allowed\n");
                response.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
                send(ctx, request, response);
                return;
            }
            send(ctx, request, render.render(query));
        };
    }

    /**
     * A lifecycle verb: GET (what pumactl sends) or POST, else 405; 404 until {@link #actions} is called.
     * Answered before the work starts, and the connection closed, since a stop closes this listener.
     */
    private Endpoint acting(Consumer<ControlApp.Actions> verb) {
        return (ctx, request, query) -> {
            ControlApp.Actions a = actions;
            if (a == null) {
                send(ctx, request, text(HttpResponseStatus.NOT_FOUND, "not found\n"));
                return;
            }
            if (!request.method().equals(HttpMethod.GET) && !request.method().equals(HttpMethod.POST)) {
                FullHttpResponse response = text(HttpResponseStatus.METHOD_NOT_ALLOWED, "method not allowed\n");
                response.headers().set(HttpHeaderNames.ALLOW, "GET, POST");
                send(ctx, request, response);
                return;
            }
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                    Unpooled.copiedBuffer("{\"status\":\"ok\"}", StandardCharsets.UTF_8));
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
            response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
            HttpUtil.setKeepAlive(response, false);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE).addListener(done -> verb.accept(a));
        };
    }

    private FullHttpResponse metricsResponse(QueryStringDecoder query) {
        WebSocketReadout held = webSockets;
        byte[] body = PrometheusExposition.render(queue.metrics(), queue.snapshot(), held == null ? null : held.counts())
                .getBytes(StandardCharsets.UTF_8);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Unpooled.wrappedBuffer(body));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, PrometheusExposition.CONTENT_TYPE);
        return response;
    }

    private FullHttpResponse statsResponse(QueryStringDecoder query) throws IOException {
        List<String> pretty = query.parameters().get("pretty");
        boolean indent = pretty != null && !pretty.isEmpty() && !pretty.get(0).equals("0")
                && !pretty.get(0).equals("false");
        byte[] body = (indent ? StatsDocument.JSON.writerWithDefaultPrettyPrinter() : StatsDocument.JSON.writer())
                .writeValueAsBytes(stats.render());
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Unpooled.wrappedBuffer(body));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
        return response;
    }

    /** Writes {@code response} (Content-Length, keep-alive as the request asked). Any thread. */
    static void send(ChannelHandlerContext ctx, FullHttpRequest request, FullHttpResponse response) {
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
        if (request.method().equals(HttpMethod.HEAD)) {
            response.content().clear();
        }
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        HttpUtil.setKeepAlive(response, keepAlive);
        ChannelFuture written = ctx.writeAndFlush(response);
        if (!keepAlive) {
            written.addListener(ChannelFutureListener.CLOSE);
        }
    }

    /** A text/plain response. */
    static FullHttpResponse text(HttpResponseStatus status, String body) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
        return response;
    }

    /** A response made from the request's query alone. */
    private interface Render {
        FullHttpResponse render(QueryStringDecoder query) throws IOException;
    }
}
