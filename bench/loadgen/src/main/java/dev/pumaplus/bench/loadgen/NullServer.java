// The server that does nothing: answers every request at once with a 3-byte body, over HTTP/1.1 or h2c
// (prior knowledge) on the same port. Measuring the generator against it gives the harness's floor: the
// latency and the rate the harness itself can resolve, below which no server comparison means anything.
package dev.pumaplus.bench.loadgen;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Runs on its own single event-loop thread. {@link #close} stops it synchronously. */
public final class NullServer implements AutoCloseable {
  private static final byte[] BODY = "ok\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] H2_PREFACE_START = "PRI ".getBytes(StandardCharsets.US_ASCII);

  private final LoopbackListener listener;

  /** Listens on 127.0.0.1:{@code port} (0: any free port). */
  public NullServer(int port) throws InterruptedException {
    listener = new LoopbackListener(port, () -> new ChannelHandler[] {new ProtocolSniffer()});
  }

  public int port() {
    return listener.port();
  }

  @Override
  public void close() {
    listener.close();
  }

  /** {@code java -cp loadgen.jar dev.pumaplus.bench.loadgen.NullServer PORT}: serves until killed. */
  public static void main(String[] args) throws InterruptedException {
    NullServer server = new NullServer(Integer.parseInt(args[0]));
    System.out.println("null server listening on http://127.0.0.1:" + server.port());
    Runtime.getRuntime().addShutdownHook(new Thread(server::close));
    Thread.currentThread().join();
  }

  /** Picks HTTP/1.1 or h2c from the connection's first four bytes ("PRI " starts the h2 preface). */
  private static final class ProtocolSniffer extends ByteToMessageDecoder {
    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
      if (in.readableBytes() < H2_PREFACE_START.length) return;
      boolean h2 = ByteBufUtil.equals(in, in.readerIndex(), Unpooled.wrappedBuffer(H2_PREFACE_START), 0, H2_PREFACE_START.length);
      if (h2) {
        ctx.pipeline().addAfter(ctx.name(), "h2", Http2FrameCodecBuilder.forServer().build());
        ctx.pipeline().addAfter("h2", "mux", new Http2MultiplexHandler(new ChannelInitializer<Http2StreamChannel>() {
          @Override
          protected void initChannel(Http2StreamChannel ch) {
            ch.pipeline().addLast(new H2Responder());
          }
        }));
      } else {
        ctx.pipeline().addAfter(ctx.name(), "codec", new HttpServerCodec());
        ctx.pipeline().addAfter("codec", "aggregator", new HttpObjectAggregator(1 << 20));
        ctx.pipeline().addAfter("aggregator", "responder", new H1Responder());
      }
      ctx.pipeline().remove(this);
    }
  }

  private static final class H1Responder extends SimpleChannelInboundHandler<FullHttpRequest> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
      FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, Unpooled.wrappedBuffer(BODY));
      response.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain");
      response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, BODY.length);
      boolean keepAlive = HttpUtil.isKeepAlive((HttpRequest) request);
      HttpUtil.setKeepAlive(response, keepAlive);
      var write = ctx.writeAndFlush(response);
      if (!keepAlive) write.addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  private static final class H2Responder extends io.netty.channel.ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        if (msg instanceof Http2HeadersFrame headers && headers.isEndStream()) {
          ctx.write(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status("200").add("content-type", "text/plain")));
          ctx.writeAndFlush(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(BODY), true));
        }
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }
  }
}
