// A test server that behaves like one worker thread: requests are served one at a time, in arrival order,
// each taking a fixed service time (or never answered), so how long a request waited is known exactly.
package dev.pumaplus.bench.loadgen;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
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
  private final MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final Channel listener;
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicInteger requests = new AtomicInteger();
  private long busyUntilNanos;

  /** {@code serviceMs} < 0: read requests, never answer. */
  QueueingServer(long serviceMs) throws InterruptedException {
    listener = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            connections.incrementAndGet();
            ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 16), new SimpleChannelInboundHandler<FullHttpRequest>() {
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
            });
          }
        }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
  }

  InetSocketAddress address() {
    return (InetSocketAddress) listener.localAddress();
  }

  int connectionsAccepted() {
    return connections.get();
  }

  int requestsReceived() {
    return requests.get();
  }

  @Override
  public void close() {
    listener.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
