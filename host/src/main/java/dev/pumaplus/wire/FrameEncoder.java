/*
 * The outbound half of the worker link codec: writes Frames (REQUEST, BODY, WELCOME, GOAWAY from the host;
 * HELLO and responses from test peers) onto a link channel, last in every link pipeline.
 */
package dev.pumaplus.wire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import java.util.List;

/**
 * Emits each {@link Frame} as one buffer when its payload is at most {@value #COPY_THRESHOLD} bytes (copied
 * behind its header: a typical REQUEST is then one write, one promise and one {@code write(2)}), and as two
 * buffers otherwise, an 8-byte header and the payload itself (retained, never copied), so a 1 MiB body goes
 * from the client's buffer to the link socket without a memory copy. Callers write a group of frames and
 * flush once. Stateless, {@link Sharable}.
 */
@Sharable
public final class FrameEncoder extends MessageToMessageEncoder<Frame> {

    /** The one instance; the encoder holds no state. */
    public static final FrameEncoder INSTANCE = new FrameEncoder();

    /**
     * The largest payload copied behind its header. Two buffers cost a second promise, a promise combiner
     * and a second iovec per frame, more than copying a kilobyte; an env with a few cookies fits.
     */
    static final int COPY_THRESHOLD = 1024;

    private FrameEncoder() {
        super(Frame.class);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Frame frame, List<Object> out) {
        int length = frame.content().readableBytes();
        if (length <= COPY_THRESHOLD) {
            ByteBuf whole = ctx.alloc().buffer(Frame.HEADER_LENGTH + length);
            writeFrame(frame, whole);
            out.add(whole);
            return;
        }
        ByteBuf header = ctx.alloc().buffer(Frame.HEADER_LENGTH);
        writeHeader(frame, header);
        out.add(header);
        out.add(frame.content().retain());
    }

    /** Writes the 8-byte header of {@code frame} to {@code out}. */
    public static void writeHeader(Frame frame, ByteBuf out) {
        out.writeByte(frame.type());
        out.writeMedium(frame.flags());
        out.writeInt(frame.content().readableBytes());
    }

    /** Appends the whole frame (header and payload) to {@code out}; copies the payload. */
    public static void writeFrame(Frame frame, ByteBuf out) {
        writeHeader(frame, out);
        out.writeBytes(frame.content(), frame.content().readerIndex(), frame.content().readableBytes());
    }
}
