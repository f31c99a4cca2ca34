/*
 * Parses the bytes of one client connection into HTTP/1.1 requests (the parse step of
 * accept → parse → queue → ...), with puma's size limits, and stamps each request head with T1 and T2.
 */
package dev.pumaplus.protocol.h1;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.List;

/**
 * Netty's request decoder (strict RFC 9112 framing: a request with both Content-Length and
 * Transfer-Encoding, a non-final chunked coding or a bad Content-Length comes out as a failed message)
 * that emits {@link ParsedRequest} instead of a bare {@link HttpRequest}, followed by the body as
 * {@code HttpContent}s ending in a {@code LastHttpContent}.
 *
 * <p>T1 is the time of the read that carried the request's first byte: for a request pipelined behind
 * another in the same read, that read's time. It also counts reads, so the connection's idle timer can tell
 * whether any byte arrived while it was armed, and when the header section in progress began, for the
 * connection's header deadline. Times come from the connection's {@link RequestClock}.
 *
 * <p>Read-ahead: while {@link #hold held}, no further request is decoded from the bytes already read (they
 * wait in the decoder's buffer, at most one read's worth since the connection stops reading too), so a
 * connection's requests in flight stay within its bound however many a client pipelines. One instance per
 * connection; event loop only.
 */
final class H1RequestDecoder extends HttpRequestDecoder {

    private long lastReadNanos;
    private long reads;
    /** T1 of the request being parsed, or -1 when no byte of the next request has arrived yet. */
    private long requestStartNanos = -1;
    /** The head of the request at {@link #requestStartNanos} has been decoded. */
    private boolean headDecoded;
    private boolean held;

    H1RequestDecoder() {
        super(new HttpDecoderConfig()
                .setMaxInitialLineLength(H1Limits.MAX_REQUEST_LINE_BYTES)
                .setMaxHeaderSize(H1Limits.MAX_HEADER_BYTES)
                .setMaxChunkSize(H1Limits.MAX_CHUNK_BYTES)
                .setAllowDuplicateContentLengths(false)
                .setValidateHeaders(true));
    }

    /** Number of reads this connection has had; changes whenever client bytes arrive. */
    long reads() {
        return reads;
    }

    /**
     * When the header section of the request being received began (its first byte's read, as T1), or -1
     * when no header section is in progress (between requests, or while a body is read).
     */
    long headerSectionStartNanos() {
        return headDecoded ? -1 : requestStartNanos;
    }

    /**
     * Stops decoding further requests (called at a request's end): the bytes after it stay buffered until
     * {@link #resume}.
     */
    void hold() {
        held = true;
    }

    /** Decodes the requests buffered while {@link #hold held}; those decoded are passed on before it returns. */
    void resume(ChannelHandlerContext ctx) throws Exception {
        held = false;
        super.channelRead(ctx, Unpooled.EMPTY_BUFFER); // not a read of the client's: no count, no time
    }

    /**
     * While held, a read that decoded nothing must not ask for another (what the base class does when
     * auto-read is off): that would keep filling the buffer this hold exists to bound.
     */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        if (held) {
            discardSomeReadBytes();
            ctx.fireChannelReadComplete();
        } else {
            super.channelReadComplete(ctx);
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        lastReadNanos = RequestClock.nanoTime(ctx.executor());
        reads++;
        if (requestStartNanos < 0) {
            requestStartNanos = lastReadNanos;
            headDecoded = false;
        }
        super.channelRead(ctx, msg);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf buffer, List<Object> out) throws Exception {
        if (held) {
            return; // at a request boundary: nothing consumed, so the decoder stops until resumed
        }
        int from = out.size();
        super.decode(ctx, buffer, out);
        for (int i = from; i < out.size(); i++) {
            Object msg = out.get(i);
            if (msg instanceof HttpRequest request) {
                long t1 = requestStartNanos < 0 ? lastReadNanos : requestStartNanos;
                out.set(i, new ParsedRequest(request, t1, RequestClock.nanoTime(ctx.executor())));
                headDecoded = true;
            }
            // A request that fails to parse is also a FullHttpRequest, hence a LastHttpContent: the
            // connection closes after it anyway.
            if (msg instanceof LastHttpContent) {
                requestStartNanos = buffer.isReadable() ? lastReadNanos : -1;
                headDecoded = false;
            }
        }
    }
}
