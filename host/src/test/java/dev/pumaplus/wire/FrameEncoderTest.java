/*
 * Claims about how a frame leaves the host on a worker link: the bytes are the frame's, and only a large
 * payload goes out as its own buffer (zero copy), a small one in one buffer with its header.
 */
package dev.pumaplus.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(5)
class FrameEncoderTest {

    private static ByteBuf payload(int length) {
        ByteBuf payload = Unpooled.buffer(length);
        for (int i = 0; i < length; i++) {
            payload.writeByte(i * 31);
        }
        return payload;
    }

    private static byte[] expected(Frame frame) {
        ByteBuf whole = Unpooled.buffer();
        FrameEncoder.writeFrame(frame, whole);
        byte[] bytes = ByteBufUtil.getBytes(whole);
        whole.release();
        return bytes;
    }

    @Test
    void smallFrameLeavesAsOneBufferHoldingHeaderAndPayload() {
        EmbeddedChannel link = new EmbeddedChannel(FrameEncoder.INSTANCE);
        ByteBuf env = payload(FrameEncoder.COPY_THRESHOLD);
        Frame frame = Frame.of(FrameType.REQUEST, true, env);
        byte[] expected = expected(frame);
        link.writeOutbound(frame);
        ByteBuf out = link.readOutbound();
        assertEquals(Unpooled.wrappedBuffer(expected), out);
        assertNull(link.readOutbound(), "one buffer for the whole frame");
        out.release();
        assertEquals(0, env.refCnt(), "the copied payload is released");
        link.finishAndReleaseAll();
    }

    @Test
    void largePayloadLeavesAsItsOwnBufferWithoutACopy() {
        EmbeddedChannel link = new EmbeddedChannel(FrameEncoder.INSTANCE);
        ByteBuf body = payload(FrameEncoder.COPY_THRESHOLD + 1);
        Frame frame = Frame.of(FrameType.BODY, false, body);
        byte[] expected = expected(frame);
        link.writeOutbound(frame);
        ByteBuf header = link.readOutbound();
        ByteBuf content = link.readOutbound();
        assertSame(body, content, "the payload itself, not a copy");
        assertEquals(Unpooled.wrappedBuffer(expected),
                Unpooled.wrappedBuffer(ByteBufUtil.getBytes(header), ByteBufUtil.getBytes(content)));
        header.release();
        content.release();
        assertNull(link.readOutbound());
        link.finishAndReleaseAll();
    }

    @Test
    void emptyPayloadLeavesAsTheHeaderAlone() {
        EmbeddedChannel link = new EmbeddedChannel(FrameEncoder.INSTANCE);
        Frame frame = Frame.empty(FrameType.BODY, true);
        byte[] expected = expected(frame);
        link.writeOutbound(frame);
        ByteBuf out = link.readOutbound();
        assertEquals(Unpooled.wrappedBuffer(expected), out);
        assertEquals(Frame.HEADER_LENGTH, out.readableBytes());
        out.release();
        assertNull(link.readOutbound());
        link.finishAndReleaseAll();
    }
}
