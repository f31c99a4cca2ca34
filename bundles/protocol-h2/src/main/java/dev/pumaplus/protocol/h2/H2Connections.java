/*
 * Every HTTP/2 connection of the process (accept → parse): the Http2Handoff service protocol-h1 calls to
 * hand over a connection (ALPN h2, h2c prior knowledge, h2c upgrade), which installs Netty's HTTP/2 frame
 * codec (with H2StreamStateGuard in front of it), a multiplexer that gives each stream an H2StreamHandler
 * and the connection's timeouts (H2TimeoutHandler); also the Listener that drains them.
 */
package dev.pumaplus.protocol.h2;

import dev.pumaplus.spi.Http2Handoff;
import dev.pumaplus.spi.Listener;
import dev.pumaplus.spi.RequestQueue;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.FullHttpMessage;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2ServerUpgradeCodec;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Limits set on every connection (see {@link H2Config}): SETTINGS_MAX_CONCURRENT_STREAMS, a header list
 * limit answered with 431 (Netty does that for a server when the decoded list is too large), and Netty's
 * rapid-reset protection ({@code decoderEnforceMaxRstFramesPerWindow}): a client resetting more streams
 * than allowed per window gets GOAWAY and is closed. Reset streams cancel their exchanges, so a flood of
 * HEADERS+RST_STREAM leaves no request queued and no worker busy for long.
 * The idle and write timeouts ({@link H2TimeoutHandler}) close a connection with no open stream, or one
 * whose client takes none of its response data, with GOAWAY.
 *
 * <p>RFC 9113's rules for what a client sends are the codec's to enforce: header fields
 * ({@code validateHeaders}), the request pseudo-headers ({@code validateRequiredPseudoHeaders}), frame sizes,
 * flow-control windows, content-length against the DATA received, stream states while a stream is open;
 * {@link H2StreamStateGuard} adds the stream-state rules where Netty answers differently. A stream error
 * goes out as RST_STREAM with its code (see {@link H2StreamHandler#exceptionCaught}), a connection error as
 * GOAWAY and a close (docs/SECURITY.md, "HTTP/2").
 *
 * <p>Threading: {@link #serve} and {@link #upgrade} run on the connection's event loop;
 * {@link #stopAccepting} and {@link #close} on any thread.
 */
final class H2Connections implements Http2Handoff, Listener {

    private final RequestQueue queue;
    private final H2Config config;
    /** WebSockets over extended CONNECT (RFC 8441), or null when the host offers no hub. */
    private final H2WebSockets webSockets;
    private final ChannelGroup channels = new DefaultChannelGroup("protocol-h2", GlobalEventExecutor.INSTANCE);

    H2Connections(RequestQueue queue, H2Config config, H2WebSockets webSockets) {
        this.queue = queue;
        this.config = config;
        this.webSockets = webSockets;
    }

    @Override
    public void serve(Channel channel, String scheme, String altSvc) {
        Http2FrameCodec codec = codec();
        channel.pipeline().addFirst("h2-timeouts", new H2TimeoutHandler(codec.connection(), config));
        channel.pipeline().addLast("h2-stream-states", new H2StreamStateGuard(codec));
        channel.pipeline().addLast("h2-codec", codec);
        channel.pipeline().addLast("h2-streams", multiplexer(scheme, altSvc));
        channels.add(channel);
    }

    @Override
    public void upgrade(Channel channel, FullHttpRequest request) {
        // Netty's own upgrade path: HttpServerUpgradeHandler answers 101 (through a response encoder that
        // leaves with it), installs the codec and replays the request into stream 1.
        Http2FrameCodec codec = codec();
        HttpResponseEncoder encoder = new HttpResponseEncoder();
        boolean hadLength = request.headers().contains(HttpHeaderNames.CONTENT_LENGTH);
        HttpServerUpgradeHandler upgrade = new HttpServerUpgradeHandler(
                ctx -> ctx.pipeline().remove(encoder),
                protocol -> AsciiString.contentEquals(Http2CodecUtil.HTTP_UPGRADE_PROTOCOL_NAME, protocol)
                        ? new Http2ServerUpgradeCodec(codec, multiplexer("http", null)) : null,
                0) {
            @Override
            protected void finishAggregation(FullHttpMessage aggregated) throws Exception {
                super.finishAggregation(aggregated);
                if (!hadLength) {
                    // The aggregator adds "content-length: 0"; the env must be the one HTTP/1.1 gives.
                    aggregated.headers().remove(HttpHeaderNames.CONTENT_LENGTH);
                }
            }
        };
        channel.pipeline().addFirst("h2-timeouts", new H2TimeoutHandler(codec.connection(), config));
        channel.pipeline().addLast("h2c-encoder", encoder);
        // Before the upgrade handler, which puts the codec in its own place when it leaves.
        channel.pipeline().addLast("h2-stream-states", new H2StreamStateGuard(codec));
        channel.pipeline().addLast("h2c-upgrade", upgrade);
        channel.pipeline().addLast("h2c-refused", new RefusedUpgrade());
        channels.add(channel);
        // Fed as head + end: the upgrade handler is an aggregator, which lets an already full request pass by.
        DefaultHttpRequest head = new DefaultHttpRequest(request.protocolVersion(), request.method(), request.uri(),
                request.headers());
        request.release();
        channel.pipeline().fireChannelRead(head);
        channel.pipeline().fireChannelRead(LastHttpContent.EMPTY_LAST_CONTENT);
    }

    private Http2FrameCodec codec() {
        Http2Settings settings = Http2Settings.defaultSettings()
                .maxConcurrentStreams(config.maxConcurrentStreams())
                .maxHeaderListSize(config.maxHeaderListBytes());
        if (webSockets != null) {
            settings.connectProtocolEnabled(true); // RFC 8441: extended CONNECT for WebSockets
        }
        return Http2FrameCodecBuilder.forServer()
                .initialSettings(settings)
                .decoderEnforceMaxRstFramesPerWindow(config.maxRstFramesPerWindow(), config.rstWindowSecs())
                .validateHeaders(true)
                .validateRequiredPseudoHeaders(true) // RFC 9113 8.3.1: :method, :scheme and :path, or it is malformed
                .build();
    }

    private Http2MultiplexHandler multiplexer(String scheme, String altSvc) {
        return new Http2MultiplexHandler(new ChannelInitializer<Http2StreamChannel>() {
            @Override
            protected void initChannel(Http2StreamChannel stream) {
                stream.pipeline().addLast("h2-stream", new H2StreamHandler(queue, config, scheme, altSvc,
                        webSockets));
            }
        });
    }

    /** GOAWAY to every connection: streams already open finish, new ones are refused, then it closes. */
    @Override
    public void stopAccepting() {
        channels.close();
    }

    /** Closes every connection; returns within 2 s. */
    void close() {
        channels.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    }

    /** Reached only when the upgrade did not happen (a malformed HTTP2-Settings): 400 and close. */
    private static final class RefusedUpgrade extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpRequest) {
                ReferenceCountUtil.release(msg);
                ByteBuf text = Unpooled.copiedBuffer("400 Bad Request\n", StandardCharsets.US_ASCII);
                DefaultFullHttpResponse response =
                        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.BAD_REQUEST, text);
                response.headers().set(HttpHeaderNames.CONTENT_LENGTH, text.readableBytes())
                        .set(HttpHeaderNames.CONNECTION, "close");
                ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
            } else {
                ctx.fireChannelRead(msg);
            }
        }
    }
}
