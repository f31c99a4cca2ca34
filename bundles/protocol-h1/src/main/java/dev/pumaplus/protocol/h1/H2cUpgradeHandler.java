/*
 * Between the HTTP/1.1 decoder and the connection handler of a cleartext connection when protocol-h2 is
 * loaded (parse → queue): the connection's first request, if it asks for `Upgrade: h2c` (RFC 7540 section
 * 3.2), is handed to protocol-h2, which answers 101 and serves it as HTTP/2 stream 1.
 */
package dev.pumaplus.protocol.h1;

import dev.pumaplus.spi.Http2Handoff;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.util.ReferenceCountUtil;

/**
 * Only a bodyless first request is upgraded (an upgrade request with a body is served as HTTP/1.1, which
 * RFC 9110 allows: a server may ignore Upgrade), and only when it lists {@code Upgrade} and
 * {@code HTTP2-Settings} in {@code Connection} as the RFC requires. After the first request this handler
 * removes itself. Event loop only.
 */
final class H2cUpgradeHandler extends ChannelInboundHandlerAdapter {

    private final Http2Handoff h2;
    private HttpRequest upgrading;

    H2cUpgradeHandler(Http2Handoff h2) {
        this.h2 = h2;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (upgrading == null) {
            if (msg instanceof ParsedRequest parsed && wantsH2c(parsed.request())) {
                upgrading = parsed.request();
                return;
            }
            ctx.pipeline().remove(this);
            ctx.fireChannelRead(msg);
            return;
        }
        if (msg instanceof LastHttpContent last && !last.content().isReadable()) {
            last.release();
            Channel channel = ctx.channel();
            HttpRequest request = upgrading;
            // Outside the decoder's read loop: the client sends nothing more before it reads the 101.
            channel.eventLoop().execute(() -> handOver(channel, request));
            return;
        }
        ReferenceCountUtil.release(msg); // cannot happen: the request had no body
    }

    private void handOver(Channel channel, HttpRequest request) {
        if (!channel.isActive()) {
            ReferenceCountUtil.release(request);
            return;
        }
        channel.pipeline().remove("h1-connection");
        channel.pipeline().remove(this);
        channel.pipeline().remove("h1-decoder");
        if (channel.pipeline().get("h2c-preface") != null) {
            channel.pipeline().remove("h2c-preface");
        }
        DefaultFullHttpRequest full = new DefaultFullHttpRequest(request.protocolVersion(), request.method(),
                request.uri(), Unpooled.EMPTY_BUFFER);
        full.headers().set(request.headers());
        ReferenceCountUtil.release(request);
        h2.upgrade(channel, full);
    }

    private static boolean wantsH2c(HttpRequest request) {
        HttpHeaders headers = request.headers();
        return request.decoderResult().isSuccess()
                && request.protocolVersion().equals(HttpVersion.HTTP_1_1)
                && headers.containsValue(HttpHeaderNames.UPGRADE, "h2c", true)
                && headers.contains(Http2CodecUtil.HTTP_UPGRADE_SETTINGS_HEADER)
                && headers.containsValue(HttpHeaderNames.CONNECTION, "upgrade", true)
                && headers.containsValue(HttpHeaderNames.CONNECTION, "http2-settings", true)
                && !HttpUtil.isTransferEncodingChunked(request)
                && HttpUtil.getContentLength(request, 0L) == 0;
    }
}
