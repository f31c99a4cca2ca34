/*
 * The host's control app: a small HTTP server on the host's own event loops that answers /stats, /metrics
 * and pumactl's verbs from the queue's live counters (QueueReadout) and the request timing (QueueMetrics), never
 * through the request queue, so it answers even when every slot is busy; and the read-only metrics
 * listener (metrics_url), which serves the same route table's public routes without the token.
 */
package dev.pumaplus.host.control;

import dev.pumaplus.host.framework.EmbeddedFelix;
import dev.pumaplus.host.link.HostTransport;
import dev.pumaplus.host.queue.QueueReadout;
import dev.pumaplus.host.queue.WebSocketReadout;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.NetUtil;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * Two listeners share one route table ({@link ControlRoutes}): the <b>control listener</b> ({@code control_url})
 * serves every route, and with a token set ({@code ?token=}, the default: {@link #randomToken}) refuses
 * any request without it (403), whatever its path, as puma does; the <b>metrics listener</b>
 * ({@code metrics_url}) serves only the {@link ControlRoutes.Access#PUBLIC} routes, without a token, and answers 404 for
 * the others as if they did not exist. On the control listener a request that changes state (an
 * {@link ControlRoutes.Access#ACTION} route, or any method but GET and HEAD) is refused with 403 when a browser sent it
 * on a page's behalf ({@link #fromBrowserPage}); without a token, every request whose {@code Host} is not
 * this machine's is refused (DNS rebinding), and the listener binds only to a loopback address.
 *
 * <p>{@code GET /stats}: puma's cluster stats shape, computed live from {@link QueueReadout#snapshot()}
 * with worker links grouped by the pid in their HELLO, plus a {@code queue} object ({@link StatsDocument}).
 * {@code ?pretty=1} indents. {@code GET /metrics}: the Prometheus text format ({@link PrometheusExposition}).
 * {@code /dashboard} and below: the live page and its stream ({@link Dashboard}).
 * {@code /restart}, {@code /reload-config}, {@code /phased-restart}, {@code /refork}, {@code /stop},
 * {@code /halt}: pumactl's verbs (GET or POST). {@code /controller}: {@link ControllerEndpoint}. Other paths: 404; other methods: 405.
 *
 * <p>Threading: the listeners' sockets and HTTP codecs are on the host's event loops, but every route
 * runs on the control app's own thread ({@link #executor}): on one core the host has one event loop, and a
 * render there stalled every request on it (a fresh host's first /stats took 52–100 ms, loading and
 * interpreting its code; docs/ARCHITECTURE.md, "The control app's thread"). The snapshot is taken under
 * the dispatcher's lock and rendered outside it.
 */
public final class ControlApp {

    private static final SecureRandom RANDOM = new SecureRandom();
    /** Bytes of a generated token: 128 bits, written as 32 hex digits (puma's SecureRandom.hex(16)). */
    private static final int TOKEN_BYTES = 16;

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

    /** Required as {@code ?token=} on the control listener; null: none ({@code no_token}, loopback only). */
    private final String token;
    private final StatsDocument stats;
    private final ControlRoutes routes;
    /** The bound listeners (control, metrics): added by the launcher's thread, closed by whichever stops. */
    private final List<Channel> servers = new CopyOnWriteArrayList<>();
    /** The listeners' open connections (a closed one leaves the group), closed before {@link #executor} stops. */
    private final ChannelGroup connections = new DefaultChannelGroup("control", GlobalEventExecutor.INSTANCE);
    /** Where every route runs, off the request path's event loops; its thread starts with the first request. */
    private final EventExecutorGroup executor = new DefaultEventExecutorGroup(1,
            new DefaultThreadFactory("puma-plus-control", true));

    public ControlApp(QueueReadout queue, String token, Path controllerJarDir, int workers, int threads,
               Instant startedAt) {
        this.token = token;
        this.stats = new StatsDocument(queue, workers, threads, startedAt);
        this.routes = new ControlRoutes(queue, stats, controllerJarDir);
    }

    /** A fresh token: 128 bits from {@link SecureRandom}, as 32 lowercase hex digits. */
    public static String randomToken() {
        byte[] bytes = new byte[TOKEN_BYTES];
        RANDOM.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    /** Enables /restart, /phased-restart, /reload-config, /stop and /halt (404 without). */
    public void actions(Actions lifecycle) {
        routes.actions(lifecycle);
    }

    /** A hot restart or TTIN/TTOU changed what /stats reports: generation number, workers, threads. */
    public void generation(int number, int workerCount, int threadCount) {
        stats.generation(number, workerCount, threadCount);
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
        routes.felix(runtime);
    }

    /** The WebSocket hub's counts: {@code /stats} gains {@code websockets}, {@code /metrics} their families. */
    public void webSockets(WebSocketReadout readout) {
        stats.webSockets(readout);
        routes.webSockets(readout);
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
                ControlRoutes.send(ctx, request, ControlRoutes.text(HttpResponseStatus.FORBIDDEN, refusal));
                return;
            }
            ControlRoutes.Route route = routes.route(query.path());
            if (route == null || !control && route.access() != ControlRoutes.Access.PUBLIC) {
                ControlRoutes.send(ctx, request, ControlRoutes.text(HttpResponseStatus.NOT_FOUND, "not found\n"));
                return;
            }
            boolean changesState = route.access() == ControlRoutes.Access.ACTION
                    || !request.method().equals(HttpMethod.GET) && !request.method().equals(HttpMethod.HEAD);
            if (control && changesState && fromBrowserPage(request.headers())) {
                ControlRoutes.send(ctx, request, ControlRoutes.text(HttpResponseStatus.FORBIDDEN,
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
