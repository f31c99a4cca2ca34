// The generator's network side: one Netty event-loop thread that opens every connection and reads every
// response, so all connection bookkeeping (pools, wait queues, timeouts) is single-threaded.
package dev.pumaplus.bench.loadgen;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.util.concurrent.TimeUnit;

/** Owns the event-loop group; {@link #close} shuts it down synchronously. Thread-safe. */
public final class ClientLoop implements AutoCloseable {
  private final MultiThreadIoEventLoopGroup group;
  private final boolean epoll;

  public ClientLoop() {
    epoll = Epoll.isAvailable();
    IoHandlerFactory factory = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    group = new MultiThreadIoEventLoopGroup(1, factory);
  }

  /** The one event loop every connection and timer of the generator runs on. */
  public EventLoop loop() {
    return (EventLoop) group.next();
  }

  /** A bootstrap on this loop with the options every transport uses; add a handler and connect. */
  public Bootstrap bootstrap(long connectTimeoutMs) {
    return new Bootstrap()
        .group(loop())
        .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, Math.max(1, connectTimeoutMs)));
  }

  public boolean usesEpoll() {
    return epoll;
  }

  @Override
  public void close() {
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
