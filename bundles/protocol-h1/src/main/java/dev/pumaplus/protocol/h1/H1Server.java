/*
 * The HTTP/1.1 listener (the accept step of accept → parse → queue → ...): binds every configured address
 * (TCP, TLS or a unix domain socket file), each with its connection bound (AcceptLimit), announces it to
 * the host, and on a graceful stop closes the listening sockets, removes its socket files and drains
 * connections.
 */
package dev.pumaplus.protocol.h1;

import dev.pumaplus.spi.ConnectionSettings;
import dev.pumaplus.spi.EventLoops;
import dev.pumaplus.spi.HostSettings;
import dev.pumaplus.spi.Http2Handoff;
import dev.pumaplus.spi.Http3Endpoints;
import dev.pumaplus.spi.Listener;
import dev.pumaplus.spi.RequestQueue;
import dev.pumaplus.spi.TlsMaterial;
import dev.pumaplus.spi.WebSocketHub;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.ServerChannel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Owns the server channels and each listener's initializer, which keeps that listener's open client
 * connections. They run on the host's event loops ({@link EventLoops}), the same ones as the worker links.
 *
 * <p>Threading: {@link #start()} and {@link #close()} are called as the bundle starts and stops (the
 * OSGi framework's thread); {@link #stopAccepting()} by the host's stop sequence. All three block until done.
 */
final class H1Server implements Listener {

    /** The host routes System.Logger into its one log. */
    private static final System.Logger LOG = System.getLogger(H1Server.class.getName());

    private final HostSettings settings;
    private final H1Config config;
    private final RequestQueue queue;
    private final Http2Handoff h2;
    private final Http3Endpoints h3;
    private final WebSocketUpgrade webSockets;
    private final List<Channel> serverChannels = new ArrayList<>();
    /** One per bind, each keeping that listener's connections. */
    private final List<H1ChannelInitializer> listeners = new ArrayList<>();
    /** The socket files of the unix:// binds this server created: removed when it stops listening. */
    private final List<Path> socketFiles = new ArrayList<>();
    private final EventLoops loops;

    H1Server(HostSettings settings, RequestQueue queue, EventLoops loops) {
        this(settings, queue, loops, null, null, null);
    }

    /**
     * @param loops the host's event loops: the listeners accept and every connection runs on them
     * @param h2 protocol-h2's handoff (h2 over TLS, h2c), or null when that bundle is not loaded
     * @param h3 protocol-h3's listeners (HTTP/3 beside each TLS listener), or null when not loaded
     * @param hub the host's WebSocket hub, or null: a WebSocket handshake is then an ordinary request
     */
    H1Server(HostSettings settings, RequestQueue queue, EventLoops loops, Http2Handoff h2, Http3Endpoints h3,
             WebSocketHub hub) {
        this.settings = settings;
        this.loops = loops;
        this.config = H1Config.from(settings);
        this.queue = queue;
        this.h2 = h2;
        this.h3 = h3;
        this.webSockets = hub == null ? null
                : new WebSocketUpgrade(hub);
    }

    /**
     * Binds every entry of the {@code binds} setting and announces each with its real port; for an
     * {@code ssl://} bind also the SHA-256 of its certificate's public key (SPKI), which browsers need to
     * trust a self-signed certificate over QUIC.
     *
     * @throws IllegalStateException naming the address when a bind fails (everything opened is closed)
     */
    void start() {
        ActivatedSockets activated;
        try {
            activated = ActivatedSockets.fromEnvironment(System.getenv(), ProcessHandle.current().pid());
        } catch (IOException e) {
            throw new IllegalStateException("protocol-h1: cannot read systemd's activated sockets (LISTEN_FDS): " + e, e);
        }
        start(activated);
    }

    /**
     * As {@link #start()}, adopting the sockets of {@code activated} (systemd's LISTEN_FDS) where a bind
     * matches one, with the {@code bind_to_activated_sockets} setting ({@code false}, {@code true} or
     * {@code only}, puma's) deciding which binds there are; an activated socket no bind took is closed.
     */
    void start(ActivatedSockets activated) {
        List<String> binds = activated.binds(settings.strings("binds"), settings.string("bind_to_activated_sockets", "false"));
        if (binds.isEmpty()) {
            throw new IllegalStateException("protocol-h1: the 'binds' setting is empty: nothing to listen on");
        }
        List<BindAddress> addresses = binds.stream().map(BindAddress::parse).toList();
        int maxConnections = config.maxConnections() == ConnectionSettings.DERIVED
                ? H1Limits.derivedConnectionsPerListener(H1Limits.descriptorLimit(), addresses.size())
                : config.maxConnections();
        LOG.log(System.Logger.Level.INFO, "puma-plus: at most " + maxConnections + " connections per listener");
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(loops.group())
                .channel(loops.tcpServerChannel())
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true);
        // Accepted TCP connections have Nagle off by Netty's default (TCP_NODELAY, set as each is created);
        // setting it again as a child option would cost every connection a second setsockopt.
        ServerBootstrap domainBootstrap = new ServerBootstrap()
                .group(loops.group())
                .channel(loops.domainServerChannel());
        for (BindAddress address : addresses) {
            Channel channel;
            TlsMaterial material = null;
            H1ChannelInitializer initializer;
            try {
                if (address.tls()) {
                    material = PemFiles.load(address.cert(), address.key());
                }
                initializer = new H1ChannelInitializer(queue, config, h2, material, webSockets);
                listeners.add(initializer);
                int fd = activated.take(address);
                if (fd >= 0) {
                    channel = adopt(initializer, new AcceptLimit(maxConnections), fd, address.isUnix());
                    LOG.log(System.Logger.Level.INFO, "puma-plus: " + address + " is systemd's activated socket (fd " + fd + ")");
                } else if (address.isUnix()) {
                    channel = bindSocketFile(domainBootstrap.handler(new AcceptLimit(maxConnections))
                            .childHandler(initializer), address);
                } else {
                    channel = bootstrap.handler(new AcceptLimit(maxConnections)).childHandler(initializer)
                            .bind(address.socketAddress()).syncUninterruptibly().channel();
                }
            } catch (Exception e) {
                close();
                throw new IllegalStateException("protocol-h1: cannot listen on " + address + ": " + e, e);
            }
            serverChannels.add(channel);
            if (address.isUnix()) {
                settings.listening(address.url(0));
                continue;
            }
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
                        + ": certificate SPKI sha256 " + PemFiles.spkiSha256Base64(material) + " ("
                        + material.privateKey().getAlgorithm() + " key)");
            }
        }
        try {
            for (String unused : activated.closeUnused()) {
                LOG.log(System.Logger.Level.INFO, "puma-plus: closing unused activated socket " + unused);
            }
        } catch (IOException e) {
            close();
            throw new UncheckedIOException("protocol-h1: cannot close the unused activated sockets", e);
        }
    }

    /**
     * Wraps systemd's already bound and listening socket {@code fd} in an epoll server channel and starts
     * accepting on it (registering an active channel begins the accept loop).
     */
    private Channel adopt(H1ChannelInitializer initializer, AcceptLimit limit, int fd, boolean unix) {
        if (!loops.transport().equals("epoll")) {
            throw new IllegalStateException("protocol-h1: socket activation (LISTEN_FDS) needs the epoll transport;"
                    + " the host runs " + loops.transport());
        }
        io.netty.channel.ChannelFactory<ServerChannel> factory = () -> unix
                ? new io.netty.channel.epoll.EpollServerDomainSocketChannel(fd)
                : new io.netty.channel.epoll.EpollServerSocketChannel(fd);
        ServerBootstrap bootstrap = new ServerBootstrap().group(loops.group()).channelFactory(factory)
                .handler(limit).childHandler(initializer);
        return bootstrap.register().syncUninterruptibly().channel();
    }

    /**
     * Binds a unix:// bind's socket file as puma does: a file left by a server that is gone (nothing accepts
     * on it) is replaced, one a live server still accepts on is an error; the file then gets the bind's
     * permissions (created under the process umask, so it only ever widens to what was asked).
     */
    private Channel bindSocketFile(ServerBootstrap bootstrap, BindAddress address) throws IOException {
        Path file = address.socketFile();
        if (Files.exists(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            if (accepting(file)) {
                throw new IOException("there is already a server bound to " + file);
            }
            Files.delete(file);
        }
        SocketAddress socketAddress = loops.transport().equals("nio")
                ? UnixDomainSocketAddress.of(file)
                : new io.netty.channel.unix.DomainSocketAddress(file.toString());
        Channel channel = bootstrap.option(ChannelOption.SO_BACKLOG, address.backlog())
                .bind(socketAddress).syncUninterruptibly().channel();
        socketFiles.add(file);
        try {
            Files.setPosixFilePermissions(file, address.socketPermissions());
        } catch (IOException | RuntimeException e) {
            channel.close().syncUninterruptibly(); // not in serverChannels yet: close() would not reach it
            throw e;
        }
        return channel;
    }

    private static boolean accepting(Path file) {
        try (SocketChannel probe = SocketChannel.open(UnixDomainSocketAddress.of(file))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** "io_uring", "epoll" or "nio": the host's transport, which the listeners use. */
    String transport() {
        return loops.transport();
    }

    /** The TCP addresses actually bound, in bind order. */
    List<InetSocketAddress> boundAddresses() {
        return serverChannels.stream().map(Channel::localAddress)
                .filter(InetSocketAddress.class::isInstance).map(InetSocketAddress.class::cast).toList();
    }

    /**
     * Closes the listening sockets (returns once closed), removes their socket files and drains every open
     * connection.
     */
    @Override
    public void stopAccepting() {
        for (Channel channel : serverChannels) {
            channel.close().syncUninterruptibly();
        }
        removeSocketFiles();
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
        removeSocketFiles();
        for (H1ChannelInitializer listener : listeners) {
            listener.closeConnections();
        }
        listeners.clear();
    }

    private void removeSocketFiles() {
        for (Path file : socketFiles) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                throw new UncheckedIOException("protocol-h1: cannot remove the socket file " + file, e);
            }
        }
        socketFiles.clear();
    }
}
