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

    /** docs/PROTOCOL.md's layout, spelled out: u8 type, u24 flags, u32 payload length, the payload. */
    private static byte[] expected(int type, int flags, ByteBuf payload) {
        int length = payload.readableBytes();
        byte[] bytes = new byte[Frame.HEADER_LENGTH + length];
        bytes[0] = (byte) type;
        bytes[1] = (byte) (flags >>> 16);
        bytes[2] = (byte) (flags >>> 8);
        bytes[3] = (byte) flags;
        bytes[4] = (byte) (length >>> 24);
        bytes[5] = (byte) (length >>> 16);
        bytes[6] = (byte) (length >>> 8);
        bytes[7] = (byte) length;
        payload.getBytes(payload.readerIndex(), bytes, Frame.HEADER_LENGTH, length);
        return bytes;
    }

    @Test
    void smallFrameLeavesAsOneBufferHoldingHeaderAndPayload() {
        EmbeddedChannel link = new EmbeddedChannel(FrameEncoder.INSTANCE);
        ByteBuf env = payload(FrameEncoder.COPY_THRESHOLD);
        Frame frame = Frame.of(FrameType.REQUEST, true, env);
        byte[] expected = expected(FrameType.REQUEST, Frame.END_STREAM, env);
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
        byte[] expected = expected(FrameType.BODY, 0, body);
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
        byte[] expected = expected(FrameType.BODY, Frame.END_STREAM, Unpooled.EMPTY_BUFFER);
        link.writeOutbound(frame);
        ByteBuf out = link.readOutbound();
        assertEquals(Unpooled.wrappedBuffer(expected), out);
        assertEquals(Frame.HEADER_LENGTH, out.readableBytes());
        out.release();
        assertNull(link.readOutbound());
        link.finishAndReleaseAll();
    }
}
