// Connection mode "new": every request opens its own TCP connection, sends `Connection: close` and closes
// it after the response, so no request ever waits behind another on a connection.
package dev.pumaplus.bench.loadgen;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import java.net.InetSocketAddress;
import java.util.HashSet;
import java.util.Set;

/** Event-loop confined (see {@link Transport}). */
final class NewConnectionTransport implements Transport {
  private final Bootstrap bootstrap;
  private final InetSocketAddress address;
  private final String authority;
  private final Set<Channel> open = new HashSet<>();

  NewConnectionTransport(ClientLoop loop, InetSocketAddress address, long timeoutMs) {
    this.address = address;
    this.authority = address.getHostString() + ":" + address.getPort();
    this.bootstrap = loop.bootstrap(timeoutMs).handler(H1Requests.initializer((handler, reusable) -> handler.channel().close()));
  }

  @Override
  public void submit(Exchange exchange) {
    ChannelFuture connect = bootstrap.connect(address);
    Channel channel = connect.channel();
    open.add(channel);
    channel.closeFuture().addListener(f -> open.remove(channel));
    exchange.onTimeout(channel::close);
    connect.addListener(f -> {
      if (!f.isSuccess()) {
        exchange.fail(Outcome.CONNECT_ERROR);
        channel.close();
        return;
      }
      if (exchange.isDone()) {
        channel.close();
        return;
      }
      channel.pipeline().get(H1ResponseHandler.class).attach(exchange);
      channel.writeAndFlush(H1Requests.get(exchange.path, authority, false));
      exchange.sent();
    });
  }

  @Override
  public int openConnections() {
    return open.size();
  }

  @Override
  public void close() {
    for (Channel channel : Set.copyOf(open)) channel.close();
  }
}
