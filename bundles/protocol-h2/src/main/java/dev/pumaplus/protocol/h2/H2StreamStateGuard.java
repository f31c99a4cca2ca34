/*
 * RFC 9113's stream-state rules where Netty's frame codec answers differently (accept → parse): sits just in
 * front of the codec, reads only the 9-byte frame headers of the bytes going by, and gives a HEADERS or DATA
 * frame on a stream the client skipped, ended or half-closed the error section 5.1 or 5.1.1 requires; the
 * codec sends it (RST_STREAM, or GOAWAY and close).
 */
package dev.pumaplus.protocol.h2;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameTypes;
import io.netty.handler.codec.http2.Http2Stream;

/**
 * Netty's codec keeps the streams that are open; once one closes it remembers only the highest stream id,
 * so a frame for any lower id that is not open gets its lesser answer, a stream error STREAM_CLOSED. RFC 9113
 * asks for connection errors in two of those cases:
 * <ul>
 * <li>section 5.1.1: a HEADERS frame opening a stream whose id is lower than one the client already
 *     opened (the skipped stream was closed implicitly, never opened): PROTOCOL_ERROR;</li>
 * <li>section 5.1: a HEADERS or DATA frame on a stream that closed after the client's END_STREAM, with no
 *     RST_STREAM either way: STREAM_CLOSED.</li>
 * </ul>
 * And a HEADERS frame on a stream in half-closed (remote) is a stream error STREAM_CLOSED (section 5.1),
 * where Netty, which counts the request's own HEADERS twice when it carried END_STREAM, takes it for a second
 * trailer section and answers PROTOCOL_ERROR: here the stream is reset with STREAM_CLOSED before the codec
 * reads the frame, which it then ignores (still decoding its header block, which HPACK requires).
 *
 * <p>A stream that was reset keeps Netty's answer (after its own RST_STREAM an endpoint must ignore what is
 * still in flight). Only the last {@link #REMEMBERED_STREAMS} client stream ids are remembered, a fixed
 * 1 KiB per connection; a frame on an older one also keeps Netty's answer.
 *
 * <p>Each judgement uses the codec's state as it is after every earlier frame, so bytes go on to the codec in
 * one piece per read except before a DATA, HEADERS or RST_STREAM frame for an id the client used already
 * (request bodies, trailers, cancels): the bytes before it go first, then the frame is judged. Frames that
 * open new streams, the bulk of a busy connection, never split a read.
 *
 * <p>Threading: the connection's event loop only.
 */
final class H2StreamStateGuard extends ChannelInboundHandlerAdapter {

    /** Client stream ids remembered (a power of two). */
    static final int REMEMBERED_STREAMS = 1024;

    private static final int FRAME_HEADER_BYTES = 9;
    // What is remembered per client stream id; 0 = nothing.
    private static final byte SKIPPED = 1;
    private static final byte OPEN = 2;
    private static final byte RESET = 3;
    private static final byte ENDED = 4;

    private final Http2FrameCodec codec;
    private final Http2Connection connection;
    /** Indexed by {@code (id >>> 1) & (REMEMBERED_STREAMS - 1)}; valid for the ids {@link #remembers} says. */
    private final byte[] streams = new byte[REMEMBERED_STREAMS];
    /** {@code id >>> 1} of the highest client stream id opened, or -1 before the first. */
    private int highestOpened = -1;
    /** The highest stream id of a HEADERS frame seen or opened: a HEADERS frame above it opens a stream. */
    private int highestHeadersId;

    private int prefaceBytesLeft = Http2CodecUtil.connectionPrefaceBuf().readableBytes();
    private final byte[] header = new byte[FRAME_HEADER_BYTES];
    private int headerBytes;
    private int payloadBytesLeft;
    /** A connection error was raised: what the client sends after it is dropped. */
    private boolean failed;

    /**
     * @param codec the frame codec this handler stands in front of; its streams are followed from now on, so
     *              create this handler with the codec (an h2c upgrade opens stream 1 before any frame)
     */
    H2StreamStateGuard(Http2FrameCodec codec) {
        this.codec = codec;
        this.connection = codec.connection();
        connection.addListener(new Http2ConnectionAdapter() {
            @Override
            public void onStreamAdded(Http2Stream stream) {
                if (connection.remote().isValidStreamId(stream.id())) {
                    opened(stream.id());
                }
            }

            @Override
            public void onStreamClosed(Http2Stream stream) {
                int id = stream.id();
                if (remembers(id) && state(id) == OPEN) {
                    // No reset sent, and none received (that marks it RESET before the codec reads it): both
                    // sides ended the stream, the client's END_STREAM included.
                    remember(id, stream.isResetSent() ? RESET : ENDED);
                }
            }
        });
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf in)) {
            ctx.fireChannelRead(msg); // the h2c upgrade request, on its way to the upgrade handler
            return;
        }
        if (failed) {
            in.release();
            return;
        }
        int forwarded = in.readerIndex();
        int i = in.readerIndex();
        int end = in.writerIndex();
        while (i < end) {
            if (prefaceBytesLeft > 0) {
                int n = Math.min(prefaceBytesLeft, end - i);
                prefaceBytesLeft -= n;
                i += n;
                continue;
            }
            if (payloadBytesLeft > 0) {
                int n = Math.min(payloadBytesLeft, end - i);
                payloadBytesLeft -= n;
                i += n;
                continue;
            }
            int frameStart = i - headerBytes; // before this read when the header began in the last one
            int n = Math.min(FRAME_HEADER_BYTES - headerBytes, end - i);
            in.getBytes(i, header, headerBytes, n);
            headerBytes += n;
            i += n;
            if (headerBytes < FRAME_HEADER_BYTES) {
                break;
            }
            headerBytes = 0;
            payloadBytesLeft = ((header[0] & 0xff) << 16) | ((header[1] & 0xff) << 8) | (header[2] & 0xff);
            byte type = header[3];
            int streamId = ((header[5] & 0x7f) << 24) | ((header[6] & 0xff) << 16) | ((header[7] & 0xff) << 8)
                    | (header[8] & 0xff);
            if (type != Http2FrameTypes.HEADERS && type != Http2FrameTypes.DATA && type != Http2FrameTypes.RST_STREAM) {
                continue;
            }
            if (streamId > highestHeadersId) {
                if (type == Http2FrameTypes.HEADERS) {
                    highestHeadersId = streamId; // opens a stream: Netty judges it
                }
                continue;
            }
            int split = Math.max(frameStart, forwarded);
            if (split > forwarded) {
                ctx.fireChannelRead(in.retainedSlice(forwarded, split - forwarded));
                forwarded = split;
            }
            Http2Exception connectionError = judge(ctx, type, streamId);
            if (connectionError != null) {
                failed = true;
                in.release();
                ctx.fireExceptionCaught(connectionError); // the codec answers GOAWAY and closes
                return;
            }
        }
        if (forwarded < end) {
            in.readerIndex(forwarded);
            ctx.fireChannelRead(in);
        } else {
            in.release();
        }
    }

    /**
     * Judges a frame of {@code type} on {@code streamId}, an id the client used before, against the codec's
     * state now: returns the connection error it is, or null; resets the stream itself where that is the
     * answer Netty gets wrong.
     */
    private Http2Exception judge(ChannelHandlerContext ctx, byte type, int streamId) {
        Http2Stream stream = connection.stream(streamId);
        if (stream != null) {
            if (type == Http2FrameTypes.RST_STREAM) {
                if (remembers(streamId)) {
                    remember(streamId, RESET);
                }
            } else if (type == Http2FrameTypes.HEADERS && stream.state() == Http2Stream.State.HALF_CLOSED_REMOTE
                    && !stream.isResetSent()) {
                // Not flushed yet, so the stream stays known, reset, and the codec ignores the frame.
                ChannelHandlerContext codecContext = ctx.pipeline().context(codec);
                codec.resetStream(codecContext, streamId, Http2Error.STREAM_CLOSED.code(), codecContext.newPromise());
            }
            return null;
        }
        if (type == Http2FrameTypes.RST_STREAM || !remembers(streamId)) {
            return null; // too old to tell: Netty's stream error
        }
        byte state = state(streamId);
        if (state == SKIPPED && type == Http2FrameTypes.HEADERS) {
            return Http2Exception.connectionError(Http2Error.PROTOCOL_ERROR,
                    "HEADERS opening stream %d, lower than stream %d the client opened before (RFC 9113 5.1.1)",
                    streamId, connection.remote().lastStreamCreated());
        }
        if (state == ENDED) {
            return Http2Exception.connectionError(Http2Error.STREAM_CLOSED,
                    "%s on stream %d, which the client had ended (RFC 9113 5.1)",
                    type == Http2FrameTypes.HEADERS ? "HEADERS" : "DATA", streamId);
        }
        return null;
    }

    /** Stream {@code id} is open: the ids the client skipped on the way there are remembered as such. */
    private void opened(int id) {
        int index = id >>> 1;
        if (index <= highestOpened) {
            return;
        }
        for (int skipped = Math.max(highestOpened + 1, index - REMEMBERED_STREAMS + 1); skipped < index; skipped++) {
            streams[skipped & (REMEMBERED_STREAMS - 1)] = SKIPPED;
        }
        highestOpened = index;
        highestHeadersId = Math.max(highestHeadersId, id);
        streams[index & (REMEMBERED_STREAMS - 1)] = OPEN;
    }

    private boolean remembers(int id) {
        int index = id >>> 1;
        return (id & 1) == 1 && index <= highestOpened && highestOpened - index < REMEMBERED_STREAMS;
    }

    private byte state(int id) {
        return streams[(id >>> 1) & (REMEMBERED_STREAMS - 1)];
    }

    private void remember(int id, byte state) {
        streams[(id >>> 1) & (REMEMBERED_STREAMS - 1)] = state;
    }
}
