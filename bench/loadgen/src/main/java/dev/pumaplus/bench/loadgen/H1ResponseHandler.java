// The end of a request's path as the generator sees it over HTTP/1.1: the response arrives on the connection
// the transport chose, and this handler ends that connection's current exchange.
package dev.pumaplus.bench.loadgen;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import java.util.function.BiConsumer;

/**
 * One per connection, one exchange at a time (no pipelining, like a load balancer). After a response the
 * connection is handed back through {@code released} with whether it may be reused (keep-alive).
 */
final class H1ResponseHandler extends SimpleChannelInboundHandler<FullHttpResponse> {
  private final BiConsumer<H1ResponseHandler, Boolean> released;
  private ChannelHandlerContext ctx;
  private Exchange current;

  H1ResponseHandler(BiConsumer<H1ResponseHandler, Boolean> released) {
    this.released = released;
  }

  void attach(Exchange exchange) {
    current = exchange;
  }

  Exchange current() {
    return current;
  }

  io.netty.channel.Channel channel() {
    return ctx.channel();
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
    Exchange exchange = current;
    current = null;
    boolean reusable = HttpUtil.isKeepAlive(response);
    if (exchange != null) exchange.succeed(response.status().code(), response.content().readableBytes());
    released.accept(this, reusable && ctx.channel().isActive());
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    Exchange exchange = current;
    current = null;
    if (exchange != null) exchange.fail(exchange.record.sentNs < 0 ? Outcome.CONNECT_ERROR : Outcome.IO_ERROR);
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }
}
