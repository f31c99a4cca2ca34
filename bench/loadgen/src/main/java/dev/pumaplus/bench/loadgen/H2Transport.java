// Connection mode "h2 N": requests become HTTP/2 streams (cleartext, prior knowledge) spread round-robin
// over N connections, each carrying many requests at once. Built on Netty's HTTP/2 client; it runs against
// any h2c server (the harness's own null server is one).
package dev.pumaplus.bench.loadgen;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;

/** Event-loop confined (see {@link Transport}). A broken connection is reopened by the next request on it. */
final class H2Transport implements Transport {
  private final Bootstrap bootstrap;
  private final InetSocketAddress address;
  private final String authority;
  private final ChannelFuture[] connections;
  private int next;

  H2Transport(ClientLoop loop, InetSocketAddress address, int connectionCount, long timeoutMs) {
    if (connectionCount < 1) throw new IllegalArgumentException("h2 connection count must be >= 1");
    this.address = address;
    this.authority = address.getHostString() + ":" + address.getPort();
    this.connections = new ChannelFuture[connectionCount];
    this.bootstrap = loop.bootstrap(timeoutMs).handler(new ChannelInitializer<SocketChannel>() {
      @Override
      protected void initChannel(SocketChannel ch) {
        ch.pipeline().addLast(Http2FrameCodecBuilder.forClient().build(),
            new Http2MultiplexHandler(new ChannelInboundHandlerAdapter()));
      }
    });
  }

  @Override
  public void submit(Exchange exchange) {
    int slot = next;
    next = (next + 1) % connections.length;
    ChannelFuture connection = connections[slot];
    if (connection == null || (connection.isDone() && !connection.channel().isActive())) {
      connection = bootstrap.connect(address);
      connections[slot] = connection;
    }
    ChannelFuture ready = connection;
    ready.addListener(f -> {
      if (!f.isSuccess()) {
        exchange.fail(Outcome.CONNECT_ERROR);
      } else if (!exchange.isDone()) {
        openStream(ready.channel(), exchange);
      }
    });
  }

  private void openStream(Channel parent, Exchange exchange) {
    new Http2StreamChannelBootstrap(parent).handler(new StreamHandler(exchange)).open().addListener(f -> {
      if (!f.isSuccess()) {
        exchange.fail(Outcome.IO_ERROR);
        return;
      }
      Http2StreamChannel stream = (Http2StreamChannel) f.getNow();
      if (exchange.isDone()) {
        stream.close();
        return;
      }
      exchange.onTimeout(stream::close);
      Http2Headers headers = new DefaultHttp2Headers().method("GET").path(exchange.path).scheme("http").authority(authority);
      stream.writeAndFlush(new DefaultHttp2HeadersFrame(headers, true));
      exchange.sent();
    });
  }

  @Override
  public int openConnections() {
    int count = 0;
    for (ChannelFuture connection : connections) {
      if (connection != null && connection.channel().isActive()) count++;
    }
    return count;
  }

  @Override
  public void close() {
    for (ChannelFuture connection : connections) {
      if (connection != null) connection.channel().close();
    }
  }

  /** Reads one stream's response: HEADERS (status), DATA, and the end of the stream. */
  private static final class StreamHandler extends ChannelInboundHandlerAdapter {
    private final Exchange exchange;
    private int status;
    private long bytes;

    StreamHandler(Exchange exchange) {
      this.exchange = exchange;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        boolean end = false;
        if (msg instanceof Http2HeadersFrame headers) {
          CharSequence code = headers.headers().status();
          if (code != null && status == 0) status = Integer.parseInt(code.toString());
          end = headers.isEndStream();
        } else if (msg instanceof Http2DataFrame data) {
          bytes += data.content().readableBytes();
          end = data.isEndStream();
        }
        if (end) {
          // The stream is closed both ways now and its channel closes by itself. Closing it here would
          // race the codec and may send RST_STREAM, which Netty peers count against a reset flood limit.
          exchange.succeed(status, bytes);
        }
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      exchange.fail(Outcome.IO_ERROR);
      ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }
}
