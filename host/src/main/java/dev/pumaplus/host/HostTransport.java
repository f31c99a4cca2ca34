/*
 * The host's one Netty transport: the event loops that run every worker link, the control app and (lent to
 * protocol-h1 as the EventLoops service) every client connection. Native epoll where it loads, else NIO
 * (JDK unix domain sockets).
 */
package dev.pumaplus.host;

import dev.pumaplus.spi.EventLoops;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerDomainSocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The event loop group plus the channel classes that match it. Choose with {@link #select()}: epoll unless
 * the system property {@code puma-plus.transport} is {@code nio} or epoll's native library cannot load.
 * Thread-safe; {@link #shutdown()} blocks until every loop has terminated. The launcher calls it after
 * Felix has stopped: protocol-h1 closes every channel it put on these loops when its bundle stops, so no
 * connection outlives the bundle code that serves it.
 */
final class HostTransport implements EventLoops {

    final String name;
    final MultiThreadIoEventLoopGroup group;
    final Class<? extends ServerChannel> domainServerChannel;
    final Class<? extends ServerChannel> tcpServerChannel;
    private final boolean epoll;

    private HostTransport(boolean epoll, int threads) {
        this.epoll = epoll;
        this.name = epoll ? "epoll" : "nio";
        IoHandlerFactory factory = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        this.group = new MultiThreadIoEventLoopGroup(threads, factory);
        this.domainServerChannel = epoll ? EpollServerDomainSocketChannel.class : NioServerDomainSocketChannel.class;
        this.tcpServerChannel = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    /** Epoll if available and not disabled, else NIO; {@code threads} event loops. */
    static HostTransport select(int threads) {
        boolean wantNio = "nio".equalsIgnoreCase(System.getProperty("puma-plus.transport"));
        return create(!wantNio && Epoll.isAvailable(), threads);
    }

    /** Exactly the transport asked for (tests run both). */
    static HostTransport create(boolean epoll, int threads) {
        return new HostTransport(epoll, threads);
    }

    /**
     * Default size: one loop per available processor (the CPUs this process may run on), so that on one core
     * a request is read, dispatched to its link, answered and written by one thread with no wake-up of
     * another: each extra loop would cost a context switch per request hop, and the Ruby workers need the
     * CPU more than the host needs parallel loops.
     */
    static HostTransport select() {
        return select(Runtime.getRuntime().availableProcessors());
    }

    @Override
    public EventLoopGroup group() {
        return group;
    }

    @Override
    public Class<? extends ServerChannel> domainServerChannel() {
        return domainServerChannel;
    }

    @Override
    public Class<? extends ServerChannel> tcpServerChannel() {
        return tcpServerChannel;
    }

    @Override
    public String transport() {
        return name;
    }

    /** The address of a unix socket at {@code path} for this transport's domain channel. */
    SocketAddress domainAddress(Path path) {
        return epoll ? new DomainSocketAddress(path.toString()) : UnixDomainSocketAddress.of(path);
    }

    /** Shuts every loop down and waits (at most a few seconds). */
    void shutdown() {
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
