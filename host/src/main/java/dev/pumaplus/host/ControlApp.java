/*
 * The host's control app: a small HTTP server on the host's own event loops that answers /stats and
 * /metrics from the Dispatcher's live counters and the request timing (QueueMetrics), never through the
 * request queue, so it answers even when every slot is busy.
 */
package dev.pumaplus.host;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pumaplus.spi.Autoscaler;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Serves {@code GET /stats}: puma's cluster stats shape, computed live from {@link Dispatcher#snapshot()}
 * with worker links grouped by the pid in their HELLO, plus a {@code queue} object (below).
 * {@code ?pretty=1} indents. {@code GET /metrics}: the Prometheus text format ({@link PrometheusExposition}).
 * {@code /dashboard} and below: the live page and its stream ({@link Dashboard}).
 * With a token configured, {@code ?token=} must match on both (else 403). Other paths: 404; other methods:
 * 405.
 *
 * <p>{@code queue}: {@code window} ("10s"); queue time p50/p95/p99/max over the last 10 s in ms
 * ({@code p50_ms} ...); {@code depth} (L), {@code busy_slots}, {@code live_slots} (c);
 * {@code predicted_wait_ms} (W_pred, null with no live slot); {@code service_p50_ms},
 * {@code service_p95_ms}; {@code arrivals_per_s} (λ over 10 s); {@code slot_mean_ms} (S_slot, the mean time
 * a request holds a slot, null before any request finished); {@code utilization} (ρ = λ·S_slot/c, null with
 * no live slot); {@code dropped} (requests cancelled by their client before dispatch, since start);
 * {@code shed} (requests answered 503 at once because their predicted wait exceeded the limit); and
 * {@code windows}: {@code "1s"}, {@code "10s"}, {@code "60s"}, each with {@code count} (requests dispatched
 * in the window), {@code arrivals_per_s} and p50/p90/p95/p99/max of queue, service and total time
 * ({@code queue_p50_ms} ... {@code total_max_ms}). Milliseconds are numbers with 3 decimals (µs).
 *
 * <p>Per worker: {@code running} = its live links, {@code pool_capacity} = its idle links,
 * {@code busy_threads} = its busy links, {@code max_threads} = the configured threads,
 * {@code requests_count} = requests completed on its links. {@code backlog}: the queue is shared by all
 * workers, so the global depth is distributed across the booted workers (depth / n each, the remainder
 * one apiece to the first workers) so that per-worker values sum exactly to the global depth: dashboards
 * built for puma sum backlog across workers. The top-level {@code backlog} is the global depth.
 *
 * <p>Threading: the handler runs on the host's event loops; the snapshot is taken under the dispatcher's
 * lock and rendered outside it.
 */
final class ControlApp {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * What the lifecycle endpoints ask of the launcher (pumactl's verbs). Called on an event loop; each
     * method only schedules the work and returns at once.
     */
    interface Actions {

        /** Hot restart: a new shepherd generation, which also reloads the config file. */
        void restart();

        /** Replace the current generation's workers one at a time. */
        void phasedRestart();

        /** Graceful stop (drain queued and running requests), or with {@code halt} at once. */
        void stop(boolean halt);
    }

    private final Dispatcher dispatcher;
    private final String token;
    private volatile int workers;
    private volatile int threads;
    /** The shepherd generation serving: puma's "phase" (0 for the first, as puma counts). */
    private volatile int phase;
    private final Instant startedAt;
    private volatile Actions actions;
    private Channel server;
    /** The OSGi runtime, for the autoscaler's /controller endpoint; null until {@link #felix} is called. */
    private volatile EmbeddedFelix felix;
    private final Dashboard dashboard;

    ControlApp(Dispatcher dispatcher, String token, int workers, int threads, Instant startedAt) {
        this.dispatcher = dispatcher;
        this.token = token;
        this.workers = workers;
        this.threads = threads;
        this.startedAt = startedAt;
        this.dashboard = new Dashboard(dispatcher, () -> {
            EmbeddedFelix runtime = felix;
            return runtime == null ? List.of() : runtime.services(Autoscaler.class);
        });
    }

    /** Enables GET /restart, /phased-restart, /reload-config, /stop and /halt (404 without). */
    void actions(Actions lifecycle) {
        this.actions = lifecycle;
    }

    /** A hot restart or TTIN/TTOU changed what /stats reports: generation number, workers, threads. */
    void generation(int number, int workerCount, int threadCount) {
        this.phase = number - 1;
        this.workers = workerCount;
        this.threads = threadCount;
    }

    /**
     * Listens on {@code url} ({@code tcp://HOST:PORT}, port 0 allowed); returns the bound address.
     *
     * @throws IOException when the URL is malformed or the bind fails
     */
    InetSocketAddress bind(HostTransport transport, String url) throws IOException {
        URI uri = URI.create(url);
        if (!"tcp".equals(uri.getScheme()) && !"http".equals(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 0) {
            throw new IOException("control_url must be tcp://HOST:PORT, got " + url);
        }
        String host = uri.getHost().startsWith("[") ? uri.getHost().substring(1, uri.getHost().length() - 1) : uri.getHost();
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(transport.group)
                .channel(transport.tcpServerChannel)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(16 * 1024), new Handler());
                    }
                });
        ChannelFuture bound = bootstrap.bind(host, uri.getPort()).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            throw new IOException("control app cannot listen on " + url + ": " + bound.cause().getMessage(), bound.cause());
        }
        server = bound.channel();
        return (InetSocketAddress) server.localAddress();
    }

    /** Gives the control app the OSGi runtime: {@code /controller} reports and swaps the controller bundle. */
    void felix(EmbeddedFelix runtime) {
        felix = runtime;
    }

    /** Closes the listener. */
    void close() {
        if (server != null) {
            server.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
    }

    /** The /stats document. */
    ObjectNode stats() {
        Dispatcher.Snapshot s = dispatcher.snapshot();
        ObjectNode root = JSON.createObjectNode();
        Instant now = Instant.now();
        List<Dispatcher.ProcessStatus> booted = s.processes();
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
            Dispatcher.ProcessStatus p = booted.get(i);
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

    private void queue(ObjectNode queue, Dispatcher.Snapshot s) {
        QueueMetrics metrics = dispatcher.metrics();
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
        putMillis(queue, "predicted_wait_ms",
                QueueMetrics.predictedWaitNanos(s.depth(), s.busy(), s.live(), slotMean));
        queue.put("service_p50_ms", millis(main.service().p50()));
        queue.put("service_p95_ms", millis(main.service().p95()));
        queue.put("arrivals_per_s", decimal(main.arrivalsPerSecond(), 3));
        putMillis(queue, "slot_mean_ms", slotMean);
        double rho = QueueMetrics.utilization(main.arrivalsPerSecond(), slotMean, s.live());
        if (Double.isNaN(rho)) {
            queue.putNull("utilization");
        } else {
            queue.put("utilization", decimal(rho, 4));
        }
        queue.put("dropped", s.dropped());
        queue.put("shed", metrics.shed());
        ObjectNode windows = queue.putObject("windows");
        for (int seconds : new int[] {1, 10, 60}) {
            QueueMetrics.Window w = seconds == QueueMetrics.MAIN_WINDOW_SECONDS ? main : metrics.window(seconds);
            ObjectNode node = windows.putObject(seconds + "s");
            node.put("count", w.queue().count());
            node.put("arrivals_per_s", decimal(w.arrivalsPerSecond(), 3));
            percentiles(node, "queue", w.queue());
            percentiles(node, "service", w.service());
            percentiles(node, "total", w.total());
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

    private boolean authorized(QueryStringDecoder query) {
        if (token == null || token.isEmpty()) {
            return true;
        }
        List<String> given = query.parameters().get("token");
        return given != null && !given.isEmpty() && MessageDigest.isEqual(
                given.get(0).getBytes(StandardCharsets.UTF_8), token.getBytes(StandardCharsets.UTF_8));
    }

    private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) throws Exception {
            QueryStringDecoder query = new QueryStringDecoder(request.uri());
            if (Dashboard.handles(query.path())) {
                if (!authorized(query)) {
                    send(ctx, request, text(HttpResponseStatus.FORBIDDEN, "forbidden\n"));
                } else {
                    dashboard.handle(ctx, request, query.path(), response -> send(ctx, request, response));
                }
                return;
            }
            if (query.path().equals(ControllerEndpoint.PATH)) {
                if (!authorized(query)) {
                    send(ctx, request, text(HttpResponseStatus.FORBIDDEN, "forbidden\n"));
                } else {
                    ControllerEndpoint.handle(felix, request, query, response -> send(ctx, request, response));
                }
                return;
            }
            FullHttpResponse response;
            boolean metrics = query.path().equals("/metrics");
            Runnable action = action(query.path());
            if (action != null) {
                // pumactl's verbs: GET, with the token, answered before the work starts (a stop closes us)
                if (!authorized(query)) {
                    response = text(HttpResponseStatus.FORBIDDEN, "forbidden\n");
                } else {
                    response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                            Unpooled.copiedBuffer("{\"status\":\"ok\"}", StandardCharsets.UTF_8));
                    response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
                    response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
                    HttpUtil.setKeepAlive(response, false);
                    ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE)
                            .addListener(done -> action.run());
                    return;
                }
            } else if (!query.path().equals("/stats") && !metrics) {
                response = text(HttpResponseStatus.NOT_FOUND, "not found\n");
            } else if (!request.method().equals(HttpMethod.GET) && !request.method().equals(HttpMethod.HEAD)) {
                response = text(HttpResponseStatus.METHOD_NOT_ALLOWED, "method not allowed\n");
                response.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
            } else if (!authorized(query)) {
                response = text(HttpResponseStatus.FORBIDDEN, "forbidden\n");
            } else if (metrics) {
                byte[] body = PrometheusExposition.render(dispatcher.metrics(), dispatcher.snapshot())
                        .getBytes(StandardCharsets.UTF_8);
                response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                        Unpooled.wrappedBuffer(body));
                response.headers().set(HttpHeaderNames.CONTENT_TYPE, PrometheusExposition.CONTENT_TYPE);
            } else {
                List<String> pretty = query.parameters().get("pretty");
                boolean indent = pretty != null && !pretty.isEmpty() && !pretty.get(0).equals("0")
                        && !pretty.get(0).equals("false");
                ObjectNode stats = stats();
                byte[] body = (indent ? JSON.writerWithDefaultPrettyPrinter() : JSON.writer()).writeValueAsBytes(stats);
                response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                        Unpooled.wrappedBuffer(body));
                response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
            }
            send(ctx, request, response);
        }

        /** Writes {@code response} (Content-Length, keep-alive as the request asked). Any thread. */
        private void send(ChannelHandlerContext ctx, FullHttpRequest request, FullHttpResponse response) {
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

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }

        /** The lifecycle action for {@code path}, or null when it is not one (or none is wired). */
        private Runnable action(String path) {
            Actions a = actions;
            if (a == null) {
                return null;
            }
            return switch (path) {
                case "/restart", "/reload-config" -> a::restart;
                case "/phased-restart" -> a::phasedRestart;
                case "/stop" -> () -> a.stop(false);
                case "/halt" -> () -> a.stop(true);
                default -> null;
            };
        }

        private FullHttpResponse text(HttpResponseStatus status, String body) {
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                    Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
            return response;
        }
    }
}
