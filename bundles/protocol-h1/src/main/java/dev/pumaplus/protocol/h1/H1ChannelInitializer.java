/*
 * Sets up each client connection one listener accepts (the accept step of accept → parse → queue → ...): on
 * a TLS listener the TLS handler and ALPN, which hand "h2" to protocol-h2 and keep "http/1.1" here; on a
 * cleartext one the HTTP/1.1 handlers, preceded, when protocol-h2 is loaded, by the h2c detectors (prior
 * knowledge preface, Upgrade: h2c). Keeps the listener's open connections, to drain and close them. On TLS
 * it also runs the first-data timeout, whose period includes the handshake.
 */
package dev.pumaplus.protocol.h1;

import dev.pumaplus.spi.HeldWebSocket;
import dev.pumaplus.spi.Http2Handoff;
import dev.pumaplus.spi.RequestQueue;
import dev.pumaplus.spi.TlsMaterial;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One per listener, shared by its connections; {@link #initChannel} runs on the new connection's event
 * loop, {@link #drain} and {@link #closeConnections} on any thread.
 *
 * <p>First data on TLS: the HTTP/1.1 handler joins only after the handshake, too late to time a client that
 * sends nothing (or trickles its handshake), so here a TLS connection is closed if {@code first_data_timeout}
 * after accept its handshake is not done, or it chose HTTP/1.1 and has sent no request byte. A connection
 * handed to HTTP/2 by then is protocol-h2's to time (its idle timeout).
 */
final class H1ChannelInitializer extends ChannelInitializer<Channel> {

    private final ChannelGroup connections = new DefaultChannelGroup("protocol-h1", GlobalEventExecutor.INSTANCE);
    private final RequestQueue queue;
    private final H1Config config;
    private final Http2Handoff h2;
    private final SslContext tls;
    private final WebSocketUpgrade webSockets;
    /** Set once HTTP/3 is listening beside this TLS listener (see {@link #advertise}); null before. */
    private volatile String altSvc;

    /**
     * @param h2          protocol-h2's handoff, or null when that bundle is not loaded (no h2, no h2c)
     * @param certificate the certificate and key of a TLS listener (whose ALPN offers h2 only when {@code h2}
     *                    is set), or null for a cleartext one
     * @param webSockets  the host's WebSocket hub as this listener uses it, or null (no held WebSockets)
     */
    H1ChannelInitializer(RequestQueue queue, H1Config config, Http2Handoff h2, TlsMaterial certificate,
                         WebSocketUpgrade webSockets) {
        this.queue = queue;
        this.webSockets = webSockets;
        this.config = config;
        this.h2 = h2;
        this.tls = certificate == null ? null : ServerTls.context(certificate, h2 != null);
    }

    @Override
    protected void initChannel(Channel channel) {
        connections.add(channel);
        if (tls != null) {
            channel.pipeline().addLast("tls", tls.newHandler(channel.alloc()));
            channel.pipeline().addLast("alpn", new Alpn());
            if (config.firstDataTimeoutSecs() > 0) {
                ScheduledFuture<?> check = channel.eventLoop().schedule(() -> closeIfNoFirstData(channel),
                        config.firstDataTimeoutSecs(), TimeUnit.SECONDS);
                channel.closeFuture().addListener(closed -> check.cancel(false));
            }
            return;
        }
        if (h2 != null) {
            channel.pipeline().addLast("h2c-preface", new H2cPrefaceDetector(h2));
        }
        addHttp1(channel.pipeline(), queue);
    }

    /** The first-data timeout of a TLS connection is up: closed (without a response, as puma does) unless data came. */
    private static void closeIfNoFirstData(Channel channel) {
        if (channel.pipeline().get(Alpn.class) != null) {
            channel.close(); // the handshake is not done
            return;
        }
        H1RequestDecoder http1 = channel.pipeline().get(H1RequestDecoder.class);
        if (http1 != null && http1.reads() == 0) {
            channel.close();
        }
    }

    /**
     * From now on, TLS responses (HTTP/1.1 and h2) carry {@code Alt-Svc: value}: called once HTTP/3
     * listens on the port, which is known only after the TCP bind. Any thread.
     */
    void advertise(String value) {
        altSvc = value;
    }

    private void addHttp1(ChannelPipeline pipeline, RequestQueue requests) {
        H1RequestDecoder decoder = new H1RequestDecoder(h2 != null && tls == null);
        pipeline.addLast("h1-decoder", decoder);
        if (h2 != null && tls == null) {
            pipeline.addLast("h2c-upgrade", new H2cUpgradeHandler(h2));
        }
        pipeline.addLast("h1-connection", new H1ConnectionHandler(requests, config, decoder, webSockets));
    }

    /**
     * The listener stopped accepting: every HTTP/1.1 connection closes once it has answered the requests it
     * already read (connections handed to protocol-h2 are drained there); every held WebSocket gets the
     * closing handshake with 1001 (going away).
     */
    void drain() {
        for (Channel connection : connections) {
            H1ConnectionHandler handler = connection.pipeline().get(H1ConnectionHandler.class);
            if (handler != null) {
                connection.eventLoop().execute(handler::drain);
            }
            HeldWebSocket held = connection.pipeline().get(HeldWebSocket.class);
            if (held != null) {
                held.close(HeldWebSocket.GOING_AWAY, "server stopping"); // its close event still runs
            }
        }
    }

    /** Closes every open connection; returns once they are closed, or after 2 s. */
    void closeConnections() {
        connections.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    }

    /** Picks the protocol the TLS handshake agreed on; http/1.1 when the client offered no ALPN. */
    private final class Alpn extends ApplicationProtocolNegotiationHandler {
        Alpn() {
            super(ApplicationProtocolNames.HTTP_1_1);
        }

        @Override
        protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
            String advertised = altSvc;
            if (ApplicationProtocolNames.HTTP_2.equals(protocol) && h2 != null) {
                h2.serve(ctx.channel(), "https", advertised);
            } else if (ApplicationProtocolNames.HTTP_1_1.equals(protocol)) {
                addHttp1(ctx.pipeline(), advertised == null ? queue : new AltSvcQueue(queue, advertised));
            } else {
                ctx.close();
            }
        }

        @Override
        protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close(); // a failed handshake is the client's problem, not worth a log line per connection
        }
    }
}
