/*
 * The event loops the h1 tests lend to H1Server in the host's place (the EventLoops service): one group for
 * the whole test JVM, epoll where it loads, as the host chooses.
 */
package dev.pumaplus.protocol.h1;

import dev.pumaplus.spi.EventLoops;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerDomainSocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;

/** Two loops (so a test's connections may land on different ones, as with the host on two cores). */
final class TestEventLoops implements EventLoops {

    static final TestEventLoops INSTANCE = new TestEventLoops();

    private final boolean epoll = Epoll.isAvailable();
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(2,
            epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());

    private TestEventLoops() {
    }

    @Override
    public EventLoopGroup group() {
        return group;
    }

    @Override
    public Class<? extends ServerChannel> tcpServerChannel() {
        return epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    @Override
    public Class<? extends ServerChannel> domainServerChannel() {
        return epoll ? EpollServerDomainSocketChannel.class : NioServerDomainSocketChannel.class;
    }

    @Override
    public String transport() {
        return epoll ? "epoll" : "nio";
    }
}
