// A test server that behaves like one worker thread: requests are served one at a time, in arrival order,
// each taking a fixed service time (or never answered), so how long a request waited is known exactly.
package dev.pumaplus.bench.loadgen;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

final class QueueingServer implements AutoCloseable {
  private final long serviceMs;
  private final LoopbackListener listener;
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicInteger requests = new AtomicInteger();
  /** When the one "worker thread" is free again; on the listener's one event loop only. */
  private long busyUntilNanos;

  /** {@code serviceMs} < 0: read requests, never answer. */
  QueueingServer(long serviceMs) throws InterruptedException {
    this.serviceMs = serviceMs;
    listener = new LoopbackListener(0, () -> {
      connections.incrementAndGet();
      return new ChannelHandler[] {new HttpServerCodec(), new HttpObjectAggregator(1 << 16), new OneAtATime()};
    });
  }

  InetSocketAddress address() {
    return new InetSocketAddress("127.0.0.1", listener.port());
  }

  int connectionsAccepted() {
    return connections.get();
  }

  int requestsReceived() {
    return requests.get();
  }

  @Override
  public void close() {
    listener.close();
  }

  /** Answers each request {@code serviceMs} after the previous answer (or its arrival, if later). */
  private final class OneAtATime extends SimpleChannelInboundHandler<FullHttpRequest> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
      requests.incrementAndGet();
      if (serviceMs < 0) return;
      boolean keepAlive = HttpUtil.isKeepAlive(request);
      long now = System.nanoTime();
      busyUntilNanos = Math.max(now, busyUntilNanos) + TimeUnit.MILLISECONDS.toNanos(serviceMs);
      ctx.executor().schedule(() -> {
        var response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, Unpooled.wrappedBuffer(new byte[] {'o', 'k'}));
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 2);
        HttpUtil.setKeepAlive(response, keepAlive);
        var write = ctx.writeAndFlush(response);
        if (!keepAlive) write.addListener(f -> ctx.close());
      }, busyUntilNanos - now, TimeUnit.NANOSECONDS);
    }
  }
}
