/*
 * The first handler of a cleartext connection when protocol-h2 is loaded (accept → parse): a client that
 * opens with the HTTP/2 connection preface (h2c "prior knowledge", RFC 9113 section 3.3) is handed over to
 * protocol-h2; any other first bytes stay with HTTP/1.1.
 */
package dev.pumaplus.protocol.h1;

import dev.pumaplus.spi.Http2Handoff;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http2.Http2CodecUtil;
import java.util.List;

/**
 * Holds the first bytes only until they either differ from the preface's first line (then it removes itself
 * and the bytes go on to the HTTP/1.1 decoder) or match it (then the HTTP/1.1 handlers are removed, the
 * HTTP/2 codec installed, and the bytes, preface included, go on to it). No HTTP/1.x request starts with
 * {@code PRI * HTTP/2.0}, so a client that sent that line speaks HTTP/2, and the rest of its preface is the
 * codec's to check: a wrong one is a connection error, GOAWAY(PROTOCOL_ERROR) (RFC 9113 section 3.4), not
 * HTTP/1.1's 505. Event loop only.
 */
final class H2cPrefaceDetector extends ByteToMessageDecoder {

    private static final ByteBuf PREFACE = Http2CodecUtil.connectionPrefaceBuf();
    private static final int FIRST_LINE_BYTES = "PRI * HTTP/2.0\r\n".length();

    private final Http2Handoff h2;

    H2cPrefaceDetector(Http2Handoff h2) {
        this.h2 = h2;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        int n = Math.min(in.readableBytes(), FIRST_LINE_BYTES);
        if (!ByteBufUtil.equals(in, in.readerIndex(), PREFACE, PREFACE.readerIndex(), n)) {
            ctx.pipeline().remove(this); // HTTP/1.1: the held bytes go on to its decoder
            return;
        }
        if (n < FIRST_LINE_BYTES) {
            return; // wait for the rest of the line
        }
        ChannelPipeline pipeline = ctx.pipeline();
        pipeline.remove("h1-connection");
        pipeline.remove("h2c-upgrade");
        pipeline.remove("h1-decoder");
        h2.serve(ctx.channel(), "http", null);
        pipeline.remove(this); // the held bytes, preface first, go on to the HTTP/2 codec
    }
}
