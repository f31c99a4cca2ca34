// A listener on 127.0.0.1 served by one event-loop thread of its own (epoll where Netty has it, else NIO): the
// start-up and the synchronous stop that the harness's own servers (NullServer, DependencyServer) share.
package dev.pumaplus.bench.loadgen;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** Every connection runs on {@link #loop()}; {@link #close} stops the listener and the thread synchronously. */
final class LoopbackListener implements AutoCloseable {
  private final MultiThreadIoEventLoopGroup group;
  private final Channel channel;

  /**
   * Listens on 127.0.0.1:{@code port} (0: any free port); each accepted connection's pipeline gets the
   * handlers {@code handlers} makes for it, in order.
   */
  LoopbackListener(int port, Supplier<ChannelHandler[]> handlers) throws InterruptedException {
    boolean epoll = Epoll.isAvailable();
    IoHandlerFactory factory = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    group = new MultiThreadIoEventLoopGroup(1, factory);
    channel = new ServerBootstrap()
        .group(group)
        .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            ch.pipeline().addLast(handlers.get());
          }
        })
        .bind(new InetSocketAddress("127.0.0.1", port)).sync().channel();
  }

  /** The port it listens on. */
  int port() {
    return ((InetSocketAddress) channel.localAddress()).getPort();
  }

  /** The one thread every connection runs on. */
  EventLoop loop() {
    return group.next();
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
