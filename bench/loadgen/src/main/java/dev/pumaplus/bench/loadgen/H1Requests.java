// The HTTP/1.1 request the generator writes: a bare GET like the ones a load balancer forwards.
package dev.pumaplus.bench.loadgen;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpVersion;
import java.util.function.BiConsumer;

final class H1Requests {
  /** Responses larger than this are an error of the benchmark setup, not of the server. */
  static final int MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

  private H1Requests() {}

  static FullHttpRequest get(String path, String authority, boolean keepAlive) {
    FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, path, Unpooled.EMPTY_BUFFER);
    request.headers().set(HttpHeaderNames.HOST, authority);
    if (!keepAlive) request.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    return request;
  }

  /** The pipeline of one client connection: codec, aggregator, and a fresh response handler. */
  static ChannelInitializer<SocketChannel> initializer(BiConsumer<H1ResponseHandler, Boolean> released) {
    return new ChannelInitializer<>() {
      @Override
      protected void initChannel(SocketChannel ch) {
        ch.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(MAX_RESPONSE_BYTES), new H1ResponseHandler(released));
      }
    };
  }
}
