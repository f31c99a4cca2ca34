/*
 * The host's control app: a small HTTP server on the host's own event loops that answers /stats, /metrics
 * and pumactl's verbs from the queue's live counters (QueueReadout) and the request timing (QueueMetrics), never
 * through the request queue, so it answers even when every slot is busy; and the read-only metrics
 * listener (metrics_url), which serves the same route table's public routes without the token.
 */
package dev.pumaplus.host.control;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pumaplus.host.framework.EmbeddedFelix;
import dev.pumaplus.host.link.HostTransport;
import dev.pumaplus.host.measure.QueueMetrics;
import dev.pumaplus.host.queue.Dispatcher;
import dev.pumaplus.host.queue.ProcessStatus;
import dev.pumaplus.host.queue.QueueReadout;
import dev.pumaplus.host.queue.QueueSnapshot;
import dev.pumaplus.spi.Autoscaler;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.NetUtil;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Two listeners share one route table ({@link #routes}): the <b>control listener</b> ({@code control_url})
 * serves every route, and with a token set ({@code ?token=}, the default: {@link #randomToken}) refuses
 * any request without it (403), whatever its path, as puma does; the <b>metrics listener</b>
 * ({@code metrics_url}) serves only the {@link Access#PUBLIC} routes, without a token, and answers 404 for
 * the others as if they did not exist. On the control listener a request that changes state (an
 * {@link Access#ACTION} route, or any method but GET and HEAD) is refused with 403 when a browser sent it
 * on a page's behalf ({@link #fromBrowserPage}); without a token, every request whose {@code Host} is not
 * this machine's is refused (DNS rebinding), and the listener binds only to a loopback address.
 *
 * <p>{@code GET /stats}: puma's cluster stats shape, computed live from {@link QueueReadout#snapshot()}
 * with worker links grouped by the pid in their HELLO, plus a {@code queue} object (below).
 * {@code ?pretty=1} indents. {@code GET /metrics}: the Prometheus text format ({@link PrometheusExposition}).
 * {@code /dashboard} and below: the live page and its stream ({@link Dashboard}).
 * {@code /restart}, {@code /reload-config}, {@code /phased-restart}, {@code /refork}, {@code /stop},
 * {@code /halt}: pumactl's verbs (GET or POST). {@code /controller}: {@link ControllerEndpoint}. Other paths: 404; other methods: 405.
 *
 * <p>{@code queue}: {@code window} ("10s"); queue time p50/p95/p99/max over the last 10 s in ms
 * ({@code p50_ms} ...); {@code depth} (L), {@code busy_slots}, {@code live_slots} (c); with fiber slots,
 * {@code concurrency_limit} (how many may run at once; c is then the lower of it and the live slots);
 * {@code predicted_wait_ms} (W_pred, null with no live slot); {@code service_p50_ms},
 * {@code service_p95_ms}; {@code arrivals_per_s} (λ over 10 s); {@code slot_mean_ms} (S_slot, the mean time
 * a request holds a slot, null before any request finished); {@code utilization} (ρ = λ·S_slot/c, null with
 * no live slot); {@code dropped} (requests cancelled by their client before dispatch, since start);
 * {@code shed} (requests answered 503 at once because their predicted wait exceeded the limit);
 * {@code gvl_wait_p50_ms}, {@code gvl_wait_p95_ms} and {@code gvl_wait_ratio} (GVL wait per request, and its
 * share of service time, over 10 s; null when no request of the window measured it: unknown, as on Ruby
 * 3.1); and {@code windows}: {@code "1s"}, {@code "10s"}, {@code "60s"}, each with {@code count} (requests
 * dispatched in the window), {@code arrivals_per_s}, p50/p90/p95/p99/max of queue, service and total time
 * ({@code queue_p50_ms} ... {@code total_max_ms}), {@code gvl_count} and the GVL wait's
 * ({@code gvl_wait_p50_ms} ..., null when {@code gvl_count} is 0). Milliseconds are numbers with 3 decimals
 * (µs).
 *
 * <p>Per worker: {@code running} = its live links, {@code pool_capacity} = its idle links,
 * {@code busy_threads} = its busy links, {@code max_threads} = the configured threads,
 * {@code requests_count} = requests completed on its links. {@code backlog}: the queue is shared by all
 * workers, so the global depth is distributed across the booted workers (depth / n each, the remainder
 * one apiece to the first workers) so that per-worker values sum exactly to the global depth: dashboards
 * built for puma sum backlog across workers. The top-level {@code backlog} is the global depth.
 *
 * <p>Threading: the listeners' sockets and HTTP codecs are on the host's event loops, but every route
 * runs on the control app's own thread ({@link #executor}): on one core the host has one event loop, and a
 * render there stalled every request on it (a fresh host's first /stats took 52–100 ms, loading and
 * interpreting its code; docs/ARCHITECTURE.md, "The control app's thread"). The snapshot is taken under
 * the dispatcher's lock and rendered outside it.
 */
public final class ControlApp {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SecureRandom RANDOM = new SecureRandom();
    /** Bytes of a generated token: 128 bits, written as 32 hex digits (puma's SecureRandom.hex(16)). */
    private static final int TOKEN_BYTES = 16;

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
    private record Route(Access access, boolean subtree, Endpoint endpoint) {
    }

    /**
     * What the lifecycle endpoints ask of the launcher (pumactl's verbs). Called on the control app's
     * thread; each method only schedules the work and returns at once.
     */
    public interface Actions {

        /** Hot restart: a new shepherd generation, which also reloads the config file. */
        void restart();

        /** Replace the current generation's workers one at a time. */
        void phasedRestart();

        /** fork_worker's refork: worker 0 becomes the mold and every worker is forked from it. */
        void refork();

        /** Graceful stop (drain queued and running requests), or with {@code halt} at once. */
        void stop(boolean halt);
    }

    private final QueueReadout queue;
    /** Required as {@code ?token=} on the control listener; null: none ({@code no_token}, loopback only). */
    private final String token;
    /** The only directory {@code POST /controller?jar=} loads from; null: swapping is refused. */
    private final Path controllerJarDir;
    private final Map<String, Route> routes;
    private volatile int workers;
    private volatile int threads;
    /** The shepherd generation serving: puma's "phase" (0 for the first, as puma counts). */
    private volatile int phase;
    private final Instant startedAt;
    private volatile Actions actions;
    /** The bound listeners (control, metrics): added by the launcher's thread, closed by whichever stops. */
    private final List<Channel> servers = new CopyOnWriteArrayList<>();
    /** The listeners' open connections (a closed one leaves the group), closed before {@link #executor} stops. */
    private final ChannelGroup connections = new DefaultChannelGroup("control", GlobalEventExecutor.INSTANCE);
    /** Where every route runs, off the request path's event loops; its thread starts with the first request. */
    private final EventExecutorGroup executor = new DefaultEventExecutorGroup(1,
            new DefaultThreadFactory("puma-plus-control", true));
    /** The OSGi runtime, for the autoscaler's /controller endpoint; null until {@link #felix} is called. */
    private volatile EmbeddedFelix felix;
    private final Dashboard dashboard;

    public ControlApp(QueueReadout queue, String token, Path controllerJarDir, int workers, int threads,
               Instant startedAt) {
        this.queue = queue;
        this.token = token;
        this.controllerJarDir = controllerJarDir;
        this.workers = workers;
        this.threads = threads;
        this.startedAt = startedAt;
        this.dashboard = new Dashboard(queue, () -> {
            EmbeddedFelix runtime = felix;
            return runtime == null ? List.of() : runtime.services(Autoscaler.class);
        });
        this.routes = routes();
    }

    /** A fresh token: 128 bits from {@link SecureRandom}, as 32 lowercase hex digits. */
    public static String randomToken() {
        byte[] bytes = new byte[TOKEN_BYTES];
        RANDOM.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    /** Enables /restart, /phased-restart, /reload-config, /stop and /halt (404 without). */
    public void actions(Actions lifecycle) {
        this.actions = lifecycle;
    }

    /** A hot restart or TTIN/TTOU changed what /stats reports: generation number, workers, threads. */
    public void generation(int number, int workerCount, int threadCount) {
        this.phase = number - 1;
        this.workers = workerCount;
        this.threads = threadCount;
    }

    /**
     * Opens the control listener on {@code url} ({@code tcp://HOST:PORT}, port 0 allowed); returns the
     * bound address.
     *
     * @throws IOException when the URL is malformed, names a non-loopback address while there is no token,
     *                     or the bind fails
     */
    public InetSocketAddress bind(HostTransport transport, String url) throws IOException {
        String host = host("control_url", url);
        if (token == null && !InetAddress.getByName(host).isLoopbackAddress()) {
            throw new IOException("control_url " + url + " is not a loopback address: the control app runs "
                    + "without a token (no_token) only on 127.0.0.0/8, ::1 or localhost");
        }
        return listen(transport, "control_url", url, true);
    }

    /**
     * Opens the read-only metrics listener on {@code url} ({@code tcp://HOST:PORT}, any address: it serves
     * only public routes); returns the bound address.
     *
     * @throws IOException when the URL is malformed or the bind fails
     */
    public InetSocketAddress bindMetrics(HostTransport transport, String url) throws IOException {
        return listen(transport, "metrics_url", url, false);
    }

    private static String host(String setting, String url) throws IOException {
        URI uri = URI.create(url);
        if (!"tcp".equals(uri.getScheme()) && !"http".equals(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 0) {
            throw new IOException(setting + " must be tcp://HOST:PORT, got " + url);
        }
        return uri.getHost().startsWith("[") ? uri.getHost().substring(1, uri.getHost().length() - 1) : uri.getHost();
    }

    private InetSocketAddress listen(HostTransport transport, String setting, String url, boolean control)
            throws IOException {
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(transport.group)
                .channel(transport.tcpServerChannel())
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        connections.add(ch);
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(16 * 1024))
                                .addLast(executor, new Handler(control));
                    }
                });
        ChannelFuture bound = bootstrap.bind(host(setting, url), URI.create(url).getPort()).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            throw new IOException(setting + ": cannot listen on " + url + ": " + bound.cause().getMessage(), bound.cause());
        }
        servers.add(bound.channel());
        return (InetSocketAddress) bound.channel().localAddress();
    }

    /** Gives the control app the OSGi runtime: {@code /controller} reports and swaps the controller bundle. */
    public void felix(EmbeddedFelix runtime) {
        felix = runtime;
    }

    /**
     * Closes the listeners and their connections, then stops the control app's thread once the closed
     * connections' last events (inactive, unregistered) have reached it: 50 ms with nothing new.
     */
    public void close() {
        for (Channel server : servers) {
            server.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
        connections.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        executor.shutdownGracefully(50, 2_000, TimeUnit.MILLISECONDS).syncUninterruptibly();
    }

    /** The /stats document. */
    ObjectNode stats() {
        QueueSnapshot s = queue.snapshot();
        ObjectNode root = JSON.createObjectNode();
        Instant now = Instant.now();
        List<ProcessStatus> booted = s.processes();
        root.put("started_at", startedAt.toString());
        root.put("workers", workers);
        root.put("phase", phase);
        root.put("pid", ProcessHandle.current().pid());
        root.put("booted_workers", booted.size());
        root.put("old_workers", 0);
        root.put("backlog", s.depth());
        ArrayNode status = root.putArray("worker_status");
        int n = booted.size();
        for (int i = 0; i < n; i++) {
            ProcessStatus p = booted.get(i);
            int backlog = s.depth() / n + (i < s.depth() % n ? 1 : 0);
            ObjectNode w = status.addObject();
            w.put("started_at", Instant.ofEpochMilli(p.startedAtMillis()).toString());
            w.put("pid", p.pid());
            w.put("index", p.workerIndex());
            w.put("phase", phase);
            w.put("booted", true);
            w.put("last_checkin", now.toString());
            ObjectNode last = w.putObject("last_status");
            last.put("backlog", backlog);
            last.put("running", p.live());
            last.put("pool_capacity", p.idle());
            last.put("max_threads", threads);
            last.put("requests_count", p.completed());
            last.put("busy_threads", p.busy());
        }
        queue(root.putObject("queue"), s);
        return root;
    }

    private void queue(ObjectNode queue, QueueSnapshot s) {
        QueueMetrics metrics = this.queue.metrics();
        QueueMetrics.Window main = metrics.window(QueueMetrics.MAIN_WINDOW_SECONDS);
        double slotMean = metrics.meanSlotNanos();
        queue.put("window", QueueMetrics.MAIN_WINDOW_SECONDS + "s");
        queue.put("p50_ms", millis(main.queue().p50()));
        queue.put("p95_ms", millis(main.queue().p95()));
        queue.put("p99_ms", millis(main.queue().p99()));
        queue.put("max_ms", millis(main.queue().max()));
        queue.put("depth", s.depth());
        queue.put("busy_slots", s.busy());
        queue.put("live_slots", s.live());
        if (s.limited()) {
            queue.put("concurrency_limit", s.limit());
        }
        putMillis(queue, "predicted_wait_ms",
                QueueMetrics.predictedWaitNanos(s.depth(), s.busy(), s.capacity(), slotMean));
        queue.put("service_p50_ms", millis(main.service().p50()));
        queue.put("service_p95_ms", millis(main.service().p95()));
        queue.put("arrivals_per_s", decimal(main.arrivalsPerSecond(), 3));
        putMillis(queue, "slot_mean_ms", slotMean);
        double rho = QueueMetrics.utilization(main.arrivalsPerSecond(), slotMean, s.capacity());
        if (Double.isNaN(rho)) {
            queue.putNull("utilization");
        } else {
            queue.put("utilization", decimal(rho, 4));
        }
        queue.put("dropped", s.dropped());
        queue.put("redispatched", s.redispatched());
        queue.put("shed", metrics.shed());
        gvl(queue, main, false);
        ObjectNode windows = queue.putObject("windows");
        for (int seconds : new int[] {1, 10, 60}) {
            QueueMetrics.Window w = seconds == QueueMetrics.MAIN_WINDOW_SECONDS ? main : metrics.window(seconds);
            ObjectNode node = windows.putObject(seconds + "s");
            node.put("count", w.queue().count());
            node.put("arrivals_per_s", decimal(w.arrivalsPerSecond(), 3));
            percentiles(node, "queue", w.queue());
            percentiles(node, "service", w.service());
            percentiles(node, "total", w.total());
            gvl(node, w, true);
        }
    }

    /**
     * GVL wait per request: null (unknown) when no request of the window carried it, as on Ruby 3.1, never
     * 0. Top level: p50, p95 and the ratio; in a window ({@code all}): its count and every percentile.
     */
    private static void gvl(ObjectNode node, QueueMetrics.Window w, boolean all) {
        QueueMetrics.Percentiles p = w.gvlWait();
        boolean known = p.count() > 0;
        if (all) {
            node.put("gvl_count", p.count());
        }
        for (String name : all ? new String[] {"p50", "p90", "p95", "p99", "max"} : new String[] {"p50", "p95"}) {
            String key = "gvl_wait_" + name + "_ms";
            if (!known) {
                node.putNull(key);
                continue;
            }
            node.put(key, millis(switch (name) {
                case "p50" -> p.p50();
                case "p90" -> p.p90();
                case "p95" -> p.p95();
                case "p99" -> p.p99();
                default -> p.max();
            }));
        }
        if (!all) {
            if (Double.isNaN(w.gvlWaitRatio())) {
                node.putNull("gvl_wait_ratio");
            } else {
                node.put("gvl_wait_ratio", decimal(w.gvlWaitRatio(), 4));
            }
        }
    }

    private static void percentiles(ObjectNode node, String name, QueueMetrics.Percentiles p) {
        node.put(name + "_p50_ms", millis(p.p50()));
        node.put(name + "_p90_ms", millis(p.p90()));
        node.put(name + "_p95_ms", millis(p.p95()));
        node.put(name + "_p99_ms", millis(p.p99()));
        node.put(name + "_max_ms", millis(p.max()));
    }

    /** ns as ms with 3 decimals (rounded to the µs), written plainly (0.012, never 1.2E-2). */
    static BigDecimal millis(long nanos) {
        return BigDecimal.valueOf((nanos + 500) / 1000, 3);
    }

    /** A double of ns as ms, or null when it is NaN or infinite (unknown, or no slot to serve). */
    private static void putMillis(ObjectNode node, String name, double nanos) {
        if (Double.isNaN(nanos) || Double.isInfinite(nanos)) {
            node.putNull(name);
        } else {
            node.put(name, millis(Math.round(nanos)));
        }
    }

    private static BigDecimal decimal(double value, int scale) {
        return BigDecimal.valueOf(value).setScale(scale, RoundingMode.HALF_UP);
    }

    /** The route for {@code path}: an exact path, else the subtree route whose path is a prefix of it. */
    private Route route(String path) {
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
        table.put("/restart", new Route(Access.ACTION, false, acting(Actions::restart)));
        table.put("/reload-config", new Route(Access.ACTION, false, acting(Actions::restart)));
        table.put("/phased-restart", new Route(Access.ACTION, false, acting(Actions::phasedRestart)));
        table.put("/refork", new Route(Access.ACTION, false, acting(Actions::refork)));
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
    private Endpoint acting(Consumer<Actions> verb) {
        return (ctx, request, query) -> {
            Actions a = actions;
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
        byte[] body = PrometheusExposition.render(queue.metrics(), queue.snapshot())
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
        byte[] body = (indent ? JSON.writerWithDefaultPrettyPrinter() : JSON.writer()).writeValueAsBytes(stats());
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Unpooled.wrappedBuffer(body));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
        return response;
    }

    /** {@code ?token=} matches the token, compared in constant time; always true without a token. */
    private boolean authorized(QueryStringDecoder query) {
        if (token == null) {
            return true;
        }
        List<String> given = query.parameters().get("token");
        return given != null && !given.isEmpty() && MessageDigest.isEqual(
                given.get(0).getBytes(StandardCharsets.UTF_8), token.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * True when a browser sent the request on a page's behalf: it carries {@code Origin} (every cross-site
     * request but a plain GET, and every POST), or {@code Sec-Fetch-Site} with any value but {@code none}
     * (a fetch, image or form a page started; {@code none} is the user's own address-bar navigation).
     * pumactl, {@code puma-plus ctl}, curl and scrapers send neither.
     */
    static boolean fromBrowserPage(HttpHeaders headers) {
        String site = headers.get("Sec-Fetch-Site");
        return headers.contains(HttpHeaderNames.ORIGIN) || site != null && !site.equals("none");
    }

    /**
     * True for a {@code Host} value (name, optional port) that names this machine literally: localhost,
     * 127.0.0.0/8 or ::1. Never resolved: a name that resolves to loopback is exactly what DNS rebinding
     * uses.
     */
    static boolean loopbackHost(String host) {
        String name = host.startsWith("[") && host.indexOf(']') > 0
                ? host.substring(1, host.indexOf(']'))
                : host.replaceFirst(":\\d*\\z", "");
        if (name.equalsIgnoreCase("localhost")) {
            return true;
        }
        InetAddress literal = NetUtil.createInetAddressFromIpAddressString(name);
        return literal != null && literal.isLoopbackAddress();
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

    /**
     * One listener's requests: the control listener ({@code control} true) checks the token and the
     * browser rules before any route; the metrics listener serves PUBLIC routes only, and 404 for the rest
     * as if they did not exist.
     */
    private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {

        private final boolean control;

        Handler(boolean control) {
            this.control = control;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) throws Exception {
            QueryStringDecoder query = new QueryStringDecoder(request.uri());
            String refusal = control ? refusal(request, query) : null;
            if (refusal != null) {
                send(ctx, request, text(HttpResponseStatus.FORBIDDEN, refusal));
                return;
            }
            Route route = route(query.path());
            if (route == null || !control && route.access() != Access.PUBLIC) {
                send(ctx, request, text(HttpResponseStatus.NOT_FOUND, "not found\n"));
                return;
            }
            boolean changesState = route.access() == Access.ACTION
                    || !request.method().equals(HttpMethod.GET) && !request.method().equals(HttpMethod.HEAD);
            if (control && changesState && fromBrowserPage(request.headers())) {
                send(ctx, request, text(HttpResponseStatus.FORBIDDEN,
                        "forbidden: a browser page may not change the server's state\n"));
                return;
            }
            route.endpoint().serve(ctx, request, query);
        }

        /**
         * Why the control listener refuses the request before looking at its path (the token, as puma asks
         * it of every path; without a token, a Host that is not this machine's: DNS rebinding), or null.
         */
        private String refusal(FullHttpRequest request, QueryStringDecoder query) {
            if (!authorized(query)) {
                return "forbidden: invalid auth token\n";
            }
            String host = request.headers().get(HttpHeaderNames.HOST);
            if (token == null && host != null && !loopbackHost(host)) {
                return "forbidden: without a token the control app answers only Host: localhost, 127.0.0.1 or [::1]\n";
            }
            return null;
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
