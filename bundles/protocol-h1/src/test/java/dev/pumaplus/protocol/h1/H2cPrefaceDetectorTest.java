/*
 * Which protocol a cleartext connection's first bytes go to (accept → parse): HTTP/2 once they are the
 * connection preface's first line, so that protocol-h2 answers an invalid preface (RFC 9113 section 3.4), and
 * HTTP/1.1 otherwise. The HTTP/1.1 handlers are stand-ins under their pipeline names.
 */
package dev.pumaplus.protocol.h1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.pumaplus.spi.Http2Handoff;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.FullHttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class H2cPrefaceDetectorTest {

    /** Collects the bytes that reach it: the HTTP/1.1 decoder's place, or the HTTP/2 codec's. */
    private static final class Bytes extends ChannelInboundHandlerAdapter {
        final StringBuilder seen = new StringBuilder();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf bytes = (ByteBuf) msg;
            seen.append(bytes.toString(StandardCharsets.US_ASCII));
            bytes.release();
        }
    }

    /** protocol-h2's handoff: puts a byte collector where its codec would go. */
    private static final class RecordingHandoff implements Http2Handoff {
        Bytes http2;

        @Override
        public void serve(Channel channel, String scheme, String altSvc) {
            http2 = new Bytes();
            channel.pipeline().addLast("h2-codec", http2);
        }

        @Override
        public void upgrade(Channel channel, FullHttpRequest request) {
            throw new AssertionError("not an upgrade");
        }
    }

    private final RecordingHandoff h2 = new RecordingHandoff();
    private final Bytes http1 = new Bytes();
    private final EmbeddedChannel channel = new EmbeddedChannel();

    H2cPrefaceDetectorTest() {
        channel.pipeline().addLast("h2c-preface", new H2cPrefaceDetector(h2));
        channel.pipeline().addLast("h1-decoder", http1);
        channel.pipeline().addLast("h2c-upgrade", new ChannelInboundHandlerAdapter());
        channel.pipeline().addLast("h1-connection", new ChannelInboundHandlerAdapter());
    }

    private void read(String first, String rest) {
        channel.writeInbound(Unpooled.copiedBuffer(first, StandardCharsets.US_ASCII));
        channel.writeInbound(Unpooled.copiedBuffer(rest, StandardCharsets.US_ASCII));
    }

    @Test
    void theConnectionPrefaceGoesToHttp2WholeAndFirst() {
        read("PRI * HTTP/2.0\r\n\r\nSM", "\r\n\r\n\0\0\0\4\0\0\0\0\0");
        assertEquals("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\4\0\0\0\0\0", h2.http2.seen.toString());
        assertEquals("", http1.seen.toString());
    }

    @Test
    void aPrefaceWrongAfterItsFirstLineGoesToHttp2ToBeAnsweredAsAnInvalidPreface() {
        read("PRI * HTTP/2.0\r\n", "\r\nXX\r\n\r\n");
        assertEquals("PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n", h2.http2 == null ? null : h2.http2.seen.toString(),
                "an invalid preface must reach HTTP/2, not HTTP/1.1's 505");
        assertEquals("", http1.seen.toString());
    }

    @Test
    void anHttp1RequestStaysWithHttp1() {
        read("GET / HTTP/1.1\r\n", "Host: x\r\n\r\n");
        assertNull(h2.http2);
        assertEquals("GET / HTTP/1.1\r\nHost: x\r\n\r\n", http1.seen.toString());
    }

    @Test
    void aRequestWithThePriMethodStaysWithHttp1() {
        read("PRI / HTTP/1.1\r\n", "Host: x\r\n\r\n");
        assertNull(h2.http2);
        assertEquals("PRI / HTTP/1.1\r\nHost: x\r\n\r\n", http1.seen.toString());
    }
}
