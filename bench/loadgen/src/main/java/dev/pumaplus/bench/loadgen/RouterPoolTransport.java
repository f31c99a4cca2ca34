// Connection mode "pool N": what a router or load balancer does with keep-alive connections to a backend.
// A request takes an idle connection (the most recently used one), else opens a new one while fewer than N
// are open, else waits in FIFO order for one to come back. A connection serves one request at a time.
package dev.pumaplus.bench.loadgen;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Set;

/**
 * Event-loop confined (see {@link Transport}). The router has no idea how busy the server is behind a
 * connection: an idle connection is one whose last response arrived, nothing more. That is exactly the
 * blindness of seed 001's router (Heroku Router 2.0 with keep-alives).
 */
final class RouterPoolTransport implements Transport {
  private final Bootstrap bootstrap;
  private final InetSocketAddress address;
  private final String authority;
  private final int maxConnections;
  private final ArrayDeque<H1ResponseHandler> idle = new ArrayDeque<>();
  private final ArrayDeque<Exchange> waiting = new ArrayDeque<>();
  private final Set<Channel> channels = new HashSet<>();
  private int open;
  private int peakOpen;

  RouterPoolTransport(ClientLoop loop, InetSocketAddress address, int maxConnections, long timeoutMs) {
    if (maxConnections < 1) throw new IllegalArgumentException("pool size must be >= 1");
    this.address = address;
    this.authority = address.getHostString() + ":" + address.getPort();
    this.maxConnections = maxConnections;
    this.bootstrap = loop.bootstrap(timeoutMs).handler(H1Requests.initializer(this::released));
  }

  @Override
  public void submit(Exchange exchange) {
    H1ResponseHandler connection = idle.pollLast();
    if (connection != null) {
      dispatch(connection, exchange);
    } else if (open < maxConnections) {
      openFor(exchange);
    } else {
      waiting.addLast(exchange);
      exchange.onTimeout(() -> waiting.remove(exchange));
    }
  }

  private void openFor(Exchange exchange) {
    open++;
    peakOpen = Math.max(peakOpen, open);
    ChannelFuture connect = bootstrap.connect(address);
    Channel channel = connect.channel();
    channels.add(channel);
    channel.closeFuture().addListener(c -> channels.remove(channel));
    exchange.onTimeout(() -> { });
    connect.addListener(f -> {
      if (!f.isSuccess()) {
        open--;
        exchange.fail(Outcome.CONNECT_ERROR);
        channel.close();
        return;
      }
      H1ResponseHandler connection = channel.pipeline().get(H1ResponseHandler.class);
      channel.closeFuture().addListener(c -> closed(connection));
      if (exchange.isDone()) {
        released(connection, true); // timed out while connecting: the connection still serves the next one
      } else {
        dispatch(connection, exchange);
      }
    });
  }

  private void dispatch(H1ResponseHandler connection, Exchange exchange) {
    connection.attach(exchange);
    exchange.onTimeout(() -> connection.channel().close());
    connection.channel().writeAndFlush(H1Requests.get(exchange.path, authority, true));
    exchange.sent();
  }

  private void released(H1ResponseHandler connection, boolean reusable) {
    if (!reusable) {
      connection.channel().close();
      return;
    }
    Exchange next = waiting.pollFirst();
    if (next != null) {
      dispatch(connection, next);
    } else {
      idle.addLast(connection);
    }
  }

  private void closed(H1ResponseHandler connection) {
    open--;
    idle.remove(connection);
    Exchange next = waiting.pollFirst();
    if (next != null) openFor(next);
  }

  @Override
  public int openConnections() {
    return open;
  }

  /** The most connections open at once during the run. */
  int peakConnections() {
    return peakOpen;
  }

  @Override
  public void close() {
    waiting.clear();
    idle.clear();
    for (Channel channel : Set.copyOf(channels)) channel.close();
  }
}
