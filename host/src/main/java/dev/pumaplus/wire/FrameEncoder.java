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
 * Emits each {@link Frame} as two buffers, an 8-byte header and the payload itself (retained, never copied),
 * so a 1 MiB body goes from the client's buffer to the link socket without a memory copy. Callers write a
 * group of frames and flush once. Stateless, {@link Sharable}.
 */
@Sharable
public final class FrameEncoder extends MessageToMessageEncoder<Frame> {

    /** The one instance; the encoder holds no state. */
    public static final FrameEncoder INSTANCE = new FrameEncoder();

    private FrameEncoder() {
        super(Frame.class);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Frame frame, List<Object> out) {
        ByteBuf header = ctx.alloc().buffer(Frame.HEADER_LENGTH);
        writeHeader(frame, header);
        out.add(header);
        if (frame.content().isReadable()) {
            out.add(frame.content().retain());
        }
    }

    /** Writes the 8-byte header of {@code frame} to {@code out}. */
    public static void writeHeader(Frame frame, ByteBuf out) {
        out.writeByte(frame.type());
        out.writeMedium(frame.flags());
        out.writeInt(frame.content().readableBytes());
    }

    /** Appends the whole frame (header and payload) to {@code out}; copies, for tests and tools. */
    public static void writeFrame(Frame frame, ByteBuf out) {
        writeHeader(frame, out);
        out.writeBytes(frame.content(), frame.content().readerIndex(), frame.content().readableBytes());
    }
}
