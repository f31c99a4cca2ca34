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
 * buffer (no copy). Rejects, with a {@link ProtocolException}, an unknown type, a length above
 * {@link Frame#MAX_PAYLOAD} (as soon as the header arrives, before buffering the payload) and payloads whose
 * fixed layout is malformed: HELLO shorter than 20 bytes, WELCOME shorter than 8, GOAWAY shorter than 2,
 * REQUEST shorter than 24, RESPONSE_HEAD shorter than 28, or a truncated pair list in REQUEST or
 * RESPONSE_HEAD. After the first error
 * the decoder discards everything else: the link is to be closed. One instance per channel; runs on the
 * channel's event loop.
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
            throw new ProtocolException("unknown frame type 0x" + Integer.toHexString(type));
        }
        int flags = in.getUnsignedMedium(start + 1);
        long length = in.getUnsignedInt(start + 4);
        if (length > Frame.MAX_PAYLOAD) {
            throw new ProtocolException("payload length " + length + " exceeds MAX_PAYLOAD " + Frame.MAX_PAYLOAD);
        }
        if (in.readableBytes() < Frame.HEADER_LENGTH + length) {
            return null;
        }
        ByteBuf payload = in.slice(start + Frame.HEADER_LENGTH, (int) length);
        validate(type, payload);
        in.skipBytes(Frame.HEADER_LENGTH);
        return new Frame(type, flags, in.readRetainedSlice((int) length));
    }

    private static void validate(int type, ByteBuf payload) {
        switch (type) {
            case FrameType.HELLO -> {
                if (payload.readableBytes() < Hello.FIXED_LENGTH) {
                    throw new ProtocolException("HELLO payload of " + payload.readableBytes()
                            + " bytes, at least 20 required");
                }
            }
            case FrameType.WELCOME -> Welcome.decode(payload);
            case FrameType.GOAWAY -> Goaway.decode(payload);
            case FrameType.REQUEST -> {
                Request.checkLength(payload);
                PairList.validate(payload, Request.FIXED_LENGTH);
            }
            case FrameType.RESPONSE_HEAD, FrameType.HIJACK_HEAD -> {
                ResponseHead.checkLength(payload);
                PairList.validate(payload, ResponseHead.FIXED_LENGTH);
            }
            case FrameType.EARLY_HINTS -> PairList.validate(payload, 0);
            case FrameType.RESPONSE_FILE -> ResponseFile.decode(payload);
            default -> {
                // HIJACK (payload ignored), CONFIG, BODY, RESPONSE_BODY, RESPONSE_ABORT: any bytes are a valid payload
            }
        }
    }
}
