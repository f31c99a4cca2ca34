/*
 * The RESPONSE_HEAD payload: status and headers a worker returns for the request it was dispatched; the
 * host forwards them to the protocol bundle's ResponseSink.
 */
package dev.pumaplus.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.List;
import java.util.Map;

/**
 * {@code u16 status, u16 reserved (0)}, then the headers as a {@link PairList}.
 *
 * @param status  the HTTP status code
 * @param headers names and values as ISO-8859-1 chars, one per byte; a name may repeat
 */
public record ResponseHead(int status, List<Map.Entry<String, String>> headers) {

    /** Bytes before the pair list. */
    public static final int FIXED_LENGTH = 4;

    /**
     * Reads a RESPONSE_HEAD payload without moving its reader index.
     *
     * @throws ProtocolException when shorter than 4 bytes or the pair list is truncated
     */
    public static ResponseHead decode(ByteBuf payload) {
        if (payload.readableBytes() < FIXED_LENGTH) {
            throw new ProtocolException("RESPONSE_HEAD payload of " + payload.readableBytes()
                    + " bytes, at least 4 required");
        }
        return new ResponseHead(payload.getUnsignedShort(payload.readerIndex()),
                PairList.decode(payload, FIXED_LENGTH));
    }

    /** This head as a frame. */
    public Frame toFrame(ByteBufAllocator alloc, boolean endStream) {
        ByteBuf out = alloc.buffer(FIXED_LENGTH + PairList.encodedLength(headers));
        out.writeShort(status).writeShort(0);
        PairList.write(headers, out);
        return Frame.of(FrameType.RESPONSE_HEAD, endStream, out);
    }
}
