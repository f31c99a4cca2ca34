/*
 * The inbound half of the worker link codec: turns the byte stream from a shepherd or worker into Frames,
 * first in every link pipeline, before the host's link handler sees anything.
 */
package dev.pumaplus.wire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Splits the stream into {@link Frame}s. The payload of each frame is a retained slice of the inbound
 * buffer (no copy). Rejects, with a {@link ProtocolException} whose message begins with the frame's type
 * ({@code "WORKER_COUNT: "}, or {@code "0x7f: "} for an unknown one): an unknown type, a
 * length above {@link Frame#MAX_PAYLOAD} (as soon as the header arrives, before buffering the payload) and
 * every malformed payload of docs/PROTOCOL.md ("Malformed payloads"), checked by the type's own decoder, so
 * what passes here decodes. After the first error the decoder discards everything else: the link is to be
 * closed. One instance per channel; runs on the channel's event loop.
 */
public final class FrameDecoder extends ByteToMessageDecoder {

    private boolean failed;

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        try {
            Frame frame = decodeOne(in);
            if (frame != null) {
                out.add(frame);
            }
        } catch (ProtocolException e) {
            failed = true;
            in.skipBytes(in.readableBytes());
            throw e;
        }
    }

    /**
     * Reads one frame from {@code in} if it holds a complete one, else returns null and leaves the reader
     * index alone. Usable without a pipeline (tests, tools).
     *
     * @throws ProtocolException on a malformed frame
     */
    public static Frame decodeOne(ByteBuf in) {
        if (in.readableBytes() < Frame.HEADER_LENGTH) {
            return null;
        }
        int start = in.readerIndex();
        int type = in.getUnsignedByte(start);
        if (!FrameType.isKnown(type)) {
            throw new ProtocolException(String.format("0x%02x: unknown frame type", type));
        }
        int flags = in.getUnsignedMedium(start + 1);
        long length = in.getUnsignedInt(start + 4);
        if (length > Frame.MAX_PAYLOAD) {
            throw new ProtocolException(FrameType.name(type) + ": payload length " + length + " exceeds MAX_PAYLOAD "
                    + Frame.MAX_PAYLOAD);
        }
        if (in.readableBytes() < Frame.HEADER_LENGTH + length) {
            return null;
        }
        ByteBuf payload = in.slice(start + Frame.HEADER_LENGTH, (int) length);
        try {
            validate(type, flags, payload);
        } catch (ProtocolException e) {
            throw new ProtocolException(FrameType.name(type) + ": " + e.getMessage());
        }
        in.skipBytes(Frame.HEADER_LENGTH);
        return new Frame(type, flags, in.readRetainedSlice((int) length));
    }

    private static void validate(int type, int flags, ByteBuf payload) {
        switch (type) {
            case FrameType.HELLO -> Hello.decode(payload);
            case FrameType.WELCOME -> Welcome.decode(payload);
            case FrameType.GOAWAY -> Goaway.decode(payload);
            case FrameType.PHASED_RESTART, FrameType.HIJACK -> PayloadLength.exactly(payload, 0);
            case FrameType.WORKER_COUNT -> WorkerCount.decode(payload);
            case FrameType.EXTRA_SLOTS -> ExtraSlots.decode(payload);
            case FrameType.REQUEST -> Request.validate(payload);
            case FrameType.RESPONSE_HEAD, FrameType.HIJACK_HEAD -> ResponseHead.validate(payload, flags);
            case FrameType.EARLY_HINTS -> PairList.validate(payload, 0);
            case FrameType.RESPONSE_FILE -> ResponseFile.decode(payload);
            case FrameType.WS_COMMAND -> WebSocketCommand.decode(payload);
            default -> {
                // CONFIG, BODY, RESPONSE_BODY, RESPONSE_ABORT: any bytes are a valid payload
            }
        }
    }
}
