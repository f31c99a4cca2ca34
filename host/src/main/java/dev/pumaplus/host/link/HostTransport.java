/*
 * The host's one Netty transport: the event loops that run every worker link, the control app and (lent to
 * protocol-h1 as the EventLoops service) every client connection. Native io_uring where the kernel allows
 * it, else native epoll, else NIO (JDK unix domain sockets).
 */
package dev.pumaplus.host.link;

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
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerDomainSocketChannel;
import io.netty.channel.uring.IoUringServerSocketChannel;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The event loop group plus the channel classes that match it. Choose with {@link #select()}: the system
 * property {@code puma-plus.transport} ({@code io_uring}, {@code epoll} or {@code nio}) if set, else the first
 * of io_uring and epoll whose native library and kernel support load, else NIO. io_uring is skipped when
 * systemd passed listening sockets to this process: only epoll's channels can adopt a descriptor.
 * Thread-safe; {@link #shutdown()} blocks until every loop has terminated. The launcher calls it after
 * Felix has stopped: protocol-h1 closes every channel it put on these loops when its bundle stops, so no
 * connection outlives the bundle code that serves it.
 */
public final class HostTransport implements EventLoops {

    /**
     * The transports, cheapest first. io_uring hands a loop iteration's reads and writes to the kernel in one
     * {@code io_uring_enter}, where epoll makes a syscall for each (docs/benchmarks/NOTEBOOK.md, "io_uring").
     */
    enum Kind {
        IO_URING("io_uring", IoUringServerSocketChannel.class, IoUringServerDomainSocketChannel.class),
        EPOLL("epoll", EpollServerSocketChannel.class, EpollServerDomainSocketChannel.class),
        NIO("nio", NioServerSocketChannel.class, NioServerDomainSocketChannel.class);

        final String label;
        final Class<? extends ServerChannel> tcp;
        final Class<? extends ServerChannel> domain;

        Kind(String label, Class<? extends ServerChannel> tcp, Class<? extends ServerChannel> domain) {
            this.label = label;
            this.tcp = tcp;
            this.domain = domain;
        }

        /** Why this transport cannot run here, or null if it can. */
        Throwable unavailability() {
            return switch (this) {
                case IO_URING -> IoUring.unavailabilityCause();
                case EPOLL -> Epoll.unavailabilityCause();
                case NIO -> null;
            };
        }

        IoHandlerFactory handlers() {
            return switch (this) {
                case IO_URING -> IoUringIoHandler.newFactory();
                case EPOLL -> EpollIoHandler.newFactory();
                case NIO -> NioIoHandler.newFactory();
            };
        }

        /** The kind {@code label} names; IllegalArgumentException naming the choices for any other. */
        static Kind named(String label) {
            for (Kind kind : values()) {
                if (kind.label.equals(label)) {
                    return kind;
                }
            }
            throw new IllegalArgumentException("puma-plus.transport is " + label + "; it must be io_uring, epoll or nio");
        }
    }

    final Kind kind;
    public final MultiThreadIoEventLoopGroup group;
    /** See {@link #halfClosing()}: this transport, or one of its own. */
    private final HostTransport halfClosing;

    private HostTransport(Kind kind, int threads) {
        this.kind = kind;
        this.group = new WakeOnWorkEventLoopGroup(threads, kind.handlers());
        this.halfClosing = kind != Kind.IO_URING ? this
                : new HostTransport(Kind.EPOLL.unavailability() == null ? Kind.EPOLL : Kind.NIO, 1);
    }

    /**
     * The transport to run with {@code threads} event loops (see the class comment).
     *
     * @throws IllegalArgumentException when {@code puma-plus.transport} names no transport
     * @throws IllegalStateException when it names one that cannot run here
     */
    public static HostTransport select(int threads) {
        return create(choose(System.getProperty("puma-plus.transport"), System.getenv(), ProcessHandle.current().pid()),
                threads);
    }

    /**
     * The kind {@code property} names, else the cheapest that runs here, epoll over io_uring when
     * {@code env} passes this process ({@code pid}) systemd's sockets.
     */
    static Kind choose(String property, Map<String, String> env, long pid) {
        if (property != null) {
            Kind asked = Kind.named(property);
            Throwable cause = asked.unavailability();
            if (cause != null) {
                throw new IllegalStateException("puma-plus.transport is " + property + ", which cannot run here: "
                        + cause, cause);
            }
            return asked;
        }
        boolean activated = env.get("LISTEN_FDS") != null && String.valueOf(pid).equals(env.get("LISTEN_PID"));
        if (!activated && Kind.IO_URING.unavailability() == null) {
            return Kind.IO_URING;
        }
        return Kind.EPOLL.unavailability() == null ? Kind.EPOLL : Kind.NIO;
    }

    /** Exactly the transport asked for (tests run each). */
    static HostTransport create(Kind kind, int threads) {
        return new HostTransport(kind, threads);
    }

    /**
     * Default size: one loop per available processor (the CPUs this process may run on), so that on one core
     * a request is read, dispatched to its link, answered and written by one thread with no wake-up of
     * another: each extra loop would cost a context switch per request hop, and the Ruby workers need the
     * CPU more than the host needs parallel loops.
     */
    public static HostTransport select() {
        return select(Runtime.getRuntime().availableProcessors());
    }

    @Override
    public EventLoopGroup group() {
        return group;
    }

    @Override
    public Class<? extends ServerChannel> domainServerChannel() {
        return kind.domain;
    }

    @Override
    public Class<? extends ServerChannel> tcpServerChannel() {
        return kind.tcp;
    }

    @Override
    public String transport() {
        return kind.label;
    }

    /**
     * The transport for unix connections that must see the peer's half-close as one: the hijack
     * connections, whose app may {@code close_write} and still read. Netty 4.2.18's io_uring unix channels
     * close at the peer's FIN instead (their config is not the {@code SocketChannelConfig} its half-closure
     * check looks for), so an io_uring host runs them on an epoll transport of one loop of its own; any other
     * returns itself. Rare connections: the splice to their client then crosses two loops.
     */
    HostTransport halfClosing() {
        return halfClosing;
    }

    /** The address of a unix socket at {@code path} for this transport's domain channel. */
    SocketAddress domainAddress(Path path) {
        return kind == Kind.NIO ? UnixDomainSocketAddress.of(path) : new DomainSocketAddress(path.toString());
    }

    /** Shuts every loop down, {@link #halfClosing()}'s too, and waits (at most a few seconds each). */
    public void shutdown() {
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        if (halfClosing != this) {
            halfClosing.shutdown();
        }
    }
}
