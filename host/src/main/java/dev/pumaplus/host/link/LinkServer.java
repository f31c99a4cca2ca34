/*
 * The host's end of the worker link sockets: accepts the shepherd's and every worker thread's connection on
 * link.sock and the workers' hijack connections on hijack.sock beside it, runs the HELLO/WELCOME handshake
 * and makes worker links, which join the Dispatcher.
 */
package dev.pumaplus.host.link;

import dev.pumaplus.host.queue.Hijacks;
import dev.pumaplus.host.queue.LinkListener;
import dev.pumaplus.host.queue.RequestReporting;
import dev.pumaplus.host.queue.WebSockets;
import dev.pumaplus.host.queue.WorkerLink;
import dev.pumaplus.wire.FrameDecoder;
import dev.pumaplus.wire.FrameEncoder;
import dev.pumaplus.wire.Hello;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Two unix domain socket servers. Each accepted channel gets {@link FrameDecoder}, {@link FrameEncoder} and a
 * {@link LinkHandshake}, which replaces itself with a {@link WorkerLink} (role 0) or a {@link ShepherdLink}
 * (role 1) on link.sock, or hands a worker's hijack connection (role 2) on hijack.sock to {@link Hijacks}.
 * Link ids are assigned here, from 1, unique for the host's lifetime (u32).
 *
 * <p>Threading: link.sock's channels run on the {@link HostTransport}'s loops, hijack.sock's on its
 * {@link HostTransport#halfClosing()} loops; {@link #close} may be called from any thread.
 */
public final class LinkServer {

    /** The file name of the hijack connections' socket, in link.sock's directory (docs/PROTOCOL.md). */
    static final String HIJACK_SOCKET = "hijack.sock";

    private final HostTransport transport;
    private final LinkListener queue;
    private final RequestReporting reporting;
    private final ShepherdLink.Listener shepherdListener;
    private final WebSockets webSockets;
    private final AtomicLong linkIds = new AtomicLong();
    private final Hijacks hijacks = new Hijacks();
    private final ChannelGroup links = new DefaultChannelGroup("links", GlobalEventExecutor.INSTANCE);
    private final List<Channel> servers = new ArrayList<>(2);
    private final List<Path> paths = new ArrayList<>(2);

    /**
     * @param queue     what every worker link serves and reports to (the dispatcher)
     * @param reporting the response timing settings every worker link is given
     * @param webSockets where every worker link's WS_COMMAND frames go
     */
    public LinkServer(HostTransport transport, LinkListener queue, RequestReporting reporting,
               WebSockets webSockets, ShepherdLink.Listener shepherdListener) {
        this.transport = transport;
        this.queue = queue;
        this.reporting = reporting;
        this.shepherdListener = shepherdListener;
        this.webSockets = webSockets;
    }

    /**
     * Listens on {@code socket} and on {@link #HIJACK_SOCKET} beside it (each deleted first if a stale one
     * exists). Blocks until bound.
     */
    public void bind(Path socket) throws IOException {
        listen(socket, transport, false);
        listen(socket.resolveSibling(HIJACK_SOCKET), transport.halfClosing(), true);
    }

    private void listen(Path socket, HostTransport loops, boolean hijackSocket) throws IOException {
        Files.deleteIfExists(socket);
        paths.add(socket);
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(loops.group)
                .channel(loops.domainServerChannel())
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        links.add(ch);
                        ch.pipeline().addLast("decoder", new FrameDecoder());
                        ch.pipeline().addLast("encoder", FrameEncoder.INSTANCE);
                        ch.pipeline().addLast("link", new LinkHandshake(LinkServer.this, hijackSocket));
                    }
                });
        ChannelFuture bound = bootstrap.bind(loops.domainAddress(socket)).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            throw new IOException("cannot listen on " + socket + ": " + bound.cause().getMessage(), bound.cause());
        }
        servers.add(bound.channel());
    }

    /** A worker link (role 0) that said {@code hello} on {@code channel}, with link id {@code id}. */
    WorkerLink workerLink(long id, Channel channel, Hello hello) {
        return new WorkerLink(id, channel, hello, queue, reporting, hijacks, webSockets);
    }

    Hijacks hijacks() {
        return hijacks;
    }

    ShepherdLink.Listener shepherdListener() {
        return shepherdListener;
    }

    long nextLinkId() {
        return linkIds.incrementAndGet() & 0xFFFFFFFFL;
    }

    /** Stops accepting and closes every link; waits up to 2 s for the closes. */
    public void close() {
        for (Channel server : servers) {
            server.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
        links.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        for (Path path : paths) {
            try {
                Files.deleteIfExists(path);
            } catch (IOException ignored) {
                // the private directory is deleted next anyway
            }
        }
    }
}
