/*
 * Parses the bytes of one client connection into HTTP/1.x requests (the parse step of
 * accept → parse → queue → ...): each head is first checked by H1HeadValidator, then parsed by Netty with
 * every strictness setting of ours, and stamped with T1 and T2.
 */
package dev.pumaplus.protocol.h1;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.List;

/**
 * Netty's request decoder behind {@link H1HeadValidator}: a head reaches Netty only once the validator has
 * accepted all of it, so framing (Content-Length, Transfer-Encoding), Host and the request target follow
 * RFC 9112 on HTTP/1.0 as on 1.1 whatever Netty's own leniencies or system properties are. Netty then parses
 * the head and the body (chunk sizes, chunk delimiters, trailers) with the settings in {@link #config()}.
 * Emits {@link ParsedRequest} instead of a bare {@link HttpRequest}, followed by the body as
 * {@code HttpContent}s ending in a {@code LastHttpContent}.
 *
 * <p>A request refused by either parser comes out as a {@link ParsedRequest} whose request has a failed
 * decoder result (the validator's cause is a {@link RejectedRequestException} with its status); after it,
 * every byte of the connection is discarded unread, so nothing sent behind a bad request is ever parsed.
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

    private final H1HeadValidator head;
    /** The next bytes start a request head, which the validator must pass before Netty sees it. */
    private boolean betweenRequests = true;
    /** A request was refused: the rest of the connection is discarded. */
    private boolean refused;
    /** The authority of the request Netty is parsing, as the validator found it. */
    private String authority;

    private long lastReadNanos;
    private long reads;
    /** T1 of the request being parsed, or -1 when no byte of the next request has arrived yet. */
    private long requestStartNanos = -1;
    /** The head of the request at {@link #requestStartNanos} has been decoded. */
    private boolean headDecoded;
    private boolean held;

    /** @param h2cListener see {@link H1HeadValidator#H1HeadValidator(boolean)} */
    H1RequestDecoder(boolean h2cListener) {
        super(config());
        head = new H1HeadValidator(h2cListener);
    }

    /**
     * Every setting of Netty's decoder, none left to a Netty default or a system property (Netty's strict
     * line parsing, for one, can be switched off by {@code io.netty.handler.codec.http.defaultStrictLineParsing}).
     */
    static HttpDecoderConfig config() {
        return new HttpDecoderConfig()
                .setMaxInitialLineLength(H1Limits.MAX_REQUEST_LINE_BYTES)
                .setMaxHeaderSize(H1Limits.MAX_HEADER_BYTES)
                .setMaxChunkSize(H1Limits.MAX_CHUNK_BYTES)
                .setInitialBufferSize(H1Limits.INITIAL_LINE_BUFFER_BYTES)
                .setChunkedSupported(true)
                .setAllowPartialChunks(true) // a chunk's bytes go on as they arrive, never held to the chunk's end
                .setAllowDuplicateContentLengths(false)
                .setStrictLineParsing(true) // a bare LF in a chunk-size line or the trailers is refused
                .setValidateHeaders(true); // header and trailer names and values checked by Netty as well
    }

    /** Number of reads this connection has had; changes whenever client bytes arrive. */
    long reads() {
        return reads;
    }

    /** Bytes the client sent after the requests decoded so far are here, read but not decoded (or not yet whole). */
    boolean holdsBytes() {
        return requestStartNanos >= 0 || actualReadableBytes() > 0;
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
        if (refused) {
            buffer.skipBytes(buffer.readableBytes());
            return;
        }
        if (held) {
            return; // at a request boundary: nothing consumed, so the decoder stops until resumed
        }
        if (betweenRequests) {
            try {
                if (!head.check(buffer)) {
                    return; // the rest of the head has not arrived yet
                }
            } catch (RejectedRequestException rejected) {
                refuse(ctx, buffer, out, rejected);
                return;
            }
            authority = head.authority();
            head.reset();
            betweenRequests = false;
        }
        int from = out.size();
        super.decode(ctx, buffer, out);
        for (int i = from; i < out.size(); i++) {
            Object msg = out.get(i);
            if (msg instanceof HttpRequest request) {
                out.set(i, new ParsedRequest(request, authority, t1(), RequestClock.nanoTime(ctx.executor())));
                headDecoded = true;
            }
            if (msg instanceof HttpObject object && object.decoderResult().isFailure()) {
                refused = true; // Netty refused a chunk or the head; it discards the rest itself as well
            }
            // A request that fails to parse is also a FullHttpRequest, hence a LastHttpContent: the
            // connection closes after it anyway.
            if (msg instanceof LastHttpContent) {
                betweenRequests = true;
                requestStartNanos = buffer.isReadable() ? lastReadNanos : -1;
                headDecoded = false;
            }
        }
    }

    private void refuse(ChannelHandlerContext ctx, ByteBuf buffer, List<Object> out, RejectedRequestException cause) {
        refused = true;
        buffer.skipBytes(buffer.readableBytes());
        HttpRequest invalid = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/bad-request",
                Unpooled.EMPTY_BUFFER);
        invalid.setDecoderResult(DecoderResult.failure(cause));
        out.add(new ParsedRequest(invalid, null, t1(), RequestClock.nanoTime(ctx.executor())));
    }

    private long t1() {
        return requestStartNanos < 0 ? lastReadNanos : requestStartNanos;
    }
}
