/*
 * The host's control app: a small HTTP server on the host's own event loops that answers /stats from the
 * Dispatcher's live counters, never through the request queue, so it answers even when every slot is busy.
 */
package dev.pumaplus.host;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Serves {@code GET /stats}: puma's cluster stats shape, computed live from {@link Dispatcher#snapshot()}
 * with worker links grouped by the pid in their HELLO. {@code ?pretty=1} indents. With a token configured,
 * {@code ?token=} must match (else 403). Other paths: 404; other methods: 405.
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

    private final Dispatcher dispatcher;
    private final String token;
    private final int workers;
    private final int threads;
    private final Instant startedAt;
    private Channel server;

    ControlApp(Dispatcher dispatcher, String token, int workers, int threads, Instant startedAt) {
        this.dispatcher = dispatcher;
        this.token = token;
        this.workers = workers;
        this.threads = threads;
        this.startedAt = startedAt;
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
        root.put("phase", 0);
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
            w.put("phase", 0);
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
        return root;
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
            FullHttpResponse response;
            if (!query.path().equals("/stats")) {
                response = text(HttpResponseStatus.NOT_FOUND, "not found\n");
            } else if (!request.method().equals(HttpMethod.GET) && !request.method().equals(HttpMethod.HEAD)) {
                response = text(HttpResponseStatus.METHOD_NOT_ALLOWED, "method not allowed\n");
                response.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
            } else if (!authorized(query)) {
                response = text(HttpResponseStatus.FORBIDDEN, "forbidden\n");
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

        private FullHttpResponse text(HttpResponseStatus status, String body) {
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                    Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
            return response;
        }
    }
}
