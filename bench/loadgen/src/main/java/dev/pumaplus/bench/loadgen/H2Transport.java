// Connection mode "h2 N": requests become HTTP/2 streams (cleartext, prior knowledge) spread round-robin
// over N connections, each carrying many requests at once. Built on Netty's HTTP/2 frame codec; it runs
// against any h2c server (the harness's own null server is one).
package dev.pumaplus.bench.loadgen;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.DefaultHttp2WindowUpdateFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2ChannelDuplexHandler;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.handler.codec.http2.Http2SettingsFrame;
import io.netty.handler.codec.http2.Http2StreamFrame;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * Event-loop confined (see {@link Transport}). Streams are driven on the connection itself (no child
 * channel per stream): a finished stream is simply forgotten, and only a request that times out resets its
 * stream. No more streams are opened than the server's SETTINGS_MAX_CONCURRENT_STREAMS allows; requests
 * beyond it wait on the connection in FIFO order (their latency still counts from the intended start).
 * A broken connection is reopened by the next request on it.
 */
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
        ch.pipeline().addLast(Http2FrameCodecBuilder.forClient().build(), new StreamReader());
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
        send(ready.channel(), exchange);
      }
    });
  }

  private void send(Channel connection, Exchange exchange) {
    StreamReader reader = connection.pipeline().get(StreamReader.class);
    if (reader == null) {
      exchange.fail(Outcome.IO_ERROR);
      return;
    }
    if (reader.pending.size() >= reader.maxConcurrentStreams) {
      // the server's SETTINGS_MAX_CONCURRENT_STREAMS is reached: wait for a stream to end, as a client must
      reader.waiting.addLast(exchange);
      exchange.onTimeout(() -> reader.waiting.remove(exchange));
      return;
    }
    Http2FrameStream stream = reader.newStream();
    Http2Headers headers = new DefaultHttp2Headers().method("GET").path(exchange.path).scheme("http").authority(authority);
    connection.writeAndFlush(new DefaultHttp2HeadersFrame(headers, true).stream(stream)).addListener(f -> {
      if (!f.isSuccess()) exchange.fail(Outcome.IO_ERROR);
    });
    if (exchange.isDone()) return; // the write failed at once
    int id = stream.id(); // assigned by the codec as the HEADERS frame was written
    reader.pending.put(id, new Pending(exchange));
    exchange.sent();
    exchange.onTimeout(() -> {
      if (reader.pending.remove(id) != null && connection.isActive()) {
        connection.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.CANCEL).stream(stream));
        connection.eventLoop().execute(() -> reader.sendWaiting(connection));
      }
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

  /** One request's response so far. */
  private static final class Pending {
    final Exchange exchange;
    int status;
    long bytes;

    Pending(Exchange exchange) {
      this.exchange = exchange;
    }
  }

  /**
   * Reads every stream's response frames on one connection and ends their exchanges; holds the requests
   * waiting for a stream when the server's concurrent-stream limit is reached.
   */
  private final class StreamReader extends Http2ChannelDuplexHandler {
    final Map<Integer, Pending> pending = new HashMap<>();
    final ArrayDeque<Exchange> waiting = new ArrayDeque<>();
    /** The server's SETTINGS_MAX_CONCURRENT_STREAMS; RFC 9113 recommends at least 100, assumed until it says. */
    long maxConcurrentStreams = 100;

    void sendWaiting(Channel connection) {
      while (!waiting.isEmpty() && pending.size() < maxConcurrentStreams) {
        Exchange next = waiting.pollFirst();
        if (!next.isDone()) send(connection, next);
      }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        if (msg instanceof Http2SettingsFrame settings && settings.settings().maxConcurrentStreams() != null) {
          maxConcurrentStreams = settings.settings().maxConcurrentStreams();
          sendWaiting(ctx.channel());
          return;
        }
        if (!(msg instanceof Http2StreamFrame frame) || frame.stream() == null) return;
        Pending p = pending.get(frame.stream().id());
        if (p == null) return;
        boolean end = false;
        if (msg instanceof Http2HeadersFrame headers) {
          CharSequence code = headers.headers().status();
          if (code != null && p.status == 0) p.status = Integer.parseInt(code.toString());
          end = headers.isEndStream();
        } else if (msg instanceof Http2DataFrame data) {
          p.bytes += data.content().readableBytes();
          end = data.isEndStream();
          if (!end && data.initialFlowControlledBytes() > 0) {
            // an open stream's bytes go back to the server's send window; a closed one's go by themselves
            ctx.write(new DefaultHttp2WindowUpdateFrame(data.initialFlowControlledBytes()).stream(data.stream()));
          }
        } else if (msg instanceof Http2ResetFrame) {
          pending.remove(frame.stream().id());
          p.exchange.fail(Outcome.IO_ERROR);
          return;
        }
        if (end) {
          pending.remove(frame.stream().id());
          p.exchange.succeed(p.status, p.bytes);
        }
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      // Only now: the codec closes a stream after its last frame has been passed up, so a new stream
      // opened from channelRead would still find the old one counted against the server's limit.
      sendWaiting(ctx.channel());
      ctx.flush();
      ctx.fireChannelReadComplete();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      for (Pending p : pending.values()) p.exchange.fail(Outcome.IO_ERROR);
      pending.clear();
      for (Exchange e : waiting) e.fail(Outcome.IO_ERROR);
      waiting.clear();
      ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }
}
