/*
 * The HTTP/1.1 listener (the accept step of accept → parse → queue → ...): binds every configured address,
 * announces it to the host, and on a graceful stop closes the listening sockets and drains connections.
 */
package dev.pumaplus.protocol.h1;

import dev.pumaplus.spi.EventLoops;
import dev.pumaplus.spi.HostSettings;
import dev.pumaplus.spi.Http2Handoff;
import dev.pumaplus.spi.Http3Endpoints;
import dev.pumaplus.spi.Listener;
import dev.pumaplus.spi.RequestQueue;
import dev.pumaplus.spi.TlsMaterial;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * Owns the server channels and each listener's initializer, which keeps that listener's open client
 * connections. They run on the host's event loops ({@link EventLoops}), the same ones as the worker links.
 *
 * <p>Threading: {@link #start()} and {@link #close()} are called by the bundle activator (the OSGi
 * framework's thread); {@link #stopAccepting()} by the host's stop sequence. All three block until done.
 */
final class H1Server implements Listener {

    /** The host routes System.Logger into its one log. */
    private static final System.Logger LOG = System.getLogger(H1Server.class.getName());

    private final HostSettings settings;
    private final H1Config config;
    private final RequestQueue queue;
    private final Http2Handoff h2;
    private final Http3Endpoints h3;
    private final List<Channel> serverChannels = new ArrayList<>();
    /** One per bind, each keeping that listener's connections. */
    private final List<H1ChannelInitializer> listeners = new ArrayList<>();
    private final EventLoops loops;

    H1Server(HostSettings settings, RequestQueue queue, EventLoops loops) {
        this(settings, queue, loops, null, null);
    }

    /**
     * @param loops the host's event loops: the listeners accept and every connection runs on them
     * @param h2 protocol-h2's handoff (h2 over TLS, h2c), or null when that bundle is not loaded
     * @param h3 protocol-h3's listeners (HTTP/3 beside each TLS listener), or null when not loaded
     */
    H1Server(HostSettings settings, RequestQueue queue, EventLoops loops, Http2Handoff h2, Http3Endpoints h3) {
        this.settings = settings;
        this.loops = loops;
        this.config = H1Config.from(settings);
        this.queue = queue;
        this.h2 = h2;
        this.h3 = h3;
    }

    /**
     * Binds every entry of the {@code binds} setting and announces each with its real port; for an
     * {@code ssl://} bind also the SHA-256 of its certificate's public key (SPKI), which browsers need to
     * trust a self-signed certificate over QUIC.
     *
     * @throws IllegalStateException naming the address when a bind fails (everything opened is closed)
     */
    void start() {
        List<String> binds = settings.strings("binds");
        if (binds.isEmpty()) {
            throw new IllegalStateException("protocol-h1: the 'binds' setting is empty: nothing to listen on");
        }
        List<BindAddress> addresses = binds.stream().map(BindAddress::parse).toList();
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(loops.group())
                .channel(loops.tcpServerChannel())
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true);
        for (BindAddress address : addresses) {
            Channel channel;
            TlsMaterial material = null;
            H1ChannelInitializer initializer;
            try {
                if (address.tls()) {
                    material = TlsMaterial.load(address.cert(), address.key());
                }
                initializer = new H1ChannelInitializer(queue, config, h2, material);
                listeners.add(initializer);
                bootstrap.childHandler(initializer);
                channel = bootstrap.bind(address.socketAddress()).syncUninterruptibly().channel();
            } catch (Exception e) {
                close();
                throw new IllegalStateException("protocol-h1: cannot listen on " + address + ": " + e, e);
            }
            serverChannels.add(channel);
            InetSocketAddress bound = (InetSocketAddress) channel.localAddress();
            int port = bound.getPort();
            settings.listening(address.url(port));
            if (material != null && h3 != null) {
                try {
                    initializer.advertise(h3.open(bound, material));
                } catch (RuntimeException e) {
                    close();
                    throw e;
                }
                settings.listening("h3://" + address.host() + ":" + port);
            }
            if (material != null) {
                // Browsers are told to trust a self-signed certificate over QUIC by this hash.
                LOG.log(System.Logger.Level.INFO, "puma-plus: TLS on " + address.url(port)
                        + ": certificate SPKI sha256 " + material.spkiSha256Base64() + " ("
                        + material.keyAlgorithm() + " key)");
            }
        }
    }

    /** "epoll" or "nio": the host's transport, which the listeners use. */
    String transport() {
        return loops.transport();
    }

    /** The addresses actually bound, in bind order. */
    List<InetSocketAddress> boundAddresses() {
        return serverChannels.stream().map(c -> (InetSocketAddress) c.localAddress()).toList();
    }

    /** Closes the listening sockets (returns once closed) and drains every open connection. */
    @Override
    public void stopAccepting() {
        for (Channel channel : serverChannels) {
            channel.close().syncUninterruptibly();
        }
        for (H1ChannelInitializer listener : listeners) {
            listener.drain();
        }
    }

    /** Closes every socket, synchronously; the event loops are the host's and keep running. Idempotent. */
    void close() {
        for (Channel channel : serverChannels) {
            channel.close().syncUninterruptibly();
        }
        serverChannels.clear();
        for (H1ChannelInitializer listener : listeners) {
            listener.closeConnections();
        }
        listeners.clear();
    }
}
