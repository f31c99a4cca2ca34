/*
 * One HTTP/1.1 client connection after parsing (parse → queue → ... → respond): takes each request
 * (InboundRequest, submitted to the host's RequestQueue), answers them in request order (PendingResponses),
 * and decides keep-alive, the size limits, refusals and the close; its clocks are H1ConnectionTimeouts'.
 */
package dev.pumaplus.protocol.h1;

import dev.pumaplus.spi.RequestBodyBuffer;
import dev.pumaplus.spi.RequestQueue;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Sits after {@link H1RequestDecoder}. Every request read is submitted at once (pipelining: the host's
 * queue enforces fairness across connections), as soon as its {@link RequestBodyBuffer} holds the whole
 * body (a large one spooled to a file); a body that brings no byte for {@code first_data_timeout} is answered
 * 408 and the connection closes, as puma's reactor does.
 *
 * <p>Requests that break a limit or do not parse are answered here (400, 413, 414, 431, 501, 505), never
 * submitted, and the connection closes after that answer. Responses leave in request order: see
 * {@link PendingResponse}. When the client goes away every pending exchange is cancelled; a FIN from the
 * client counts as gone (half-closure is not allowed), so a request whose client hung up never reaches a
 * worker. A response that ends the connection is followed by a shut output and a short linger when the
 * client may still be sending, so that it reads the answer (an upload answered with 413) instead of a reset;
 * a client that announced its last request and sent nothing after it is closed at once.
 *
 * <p>The idle clock, the header deadline and the write timeout (puma's WRITE_TIMEOUT) are
 * {@link H1ConnectionTimeouts}'; this handler starts and stops them as requests and responses come and go.
 *
 * <p>At most {@link H1Config#maxPipelinedRequests()} requests are read ahead of the one being answered
 * ({@link ReadAheadLimit}).
 *
 * <p>Calls go one way: this handler creates and drives each {@link PendingResponse}, which reports back only
 * through {@link PendingResponse.Connection}; the clocks report back through
 * {@link H1ConnectionTimeouts.Connection}. Timeouts and the request timings run on the event loop's
 * clock ({@link RequestClock}).
 *
 * <p>Threading: all methods run on the connection's event loop, including the hops made by
 * {@link PendingResponse}; {@link #drain()} must be called there too.
 */
final class H1ConnectionHandler extends ChannelInboundHandlerAdapter
        implements PendingResponse.Connection, H1ConnectionTimeouts.Connection {

    /** Seconds a closing connection keeps reading (and discarding) after its output is shut. */
    static final long LINGER_SECONDS = 2;

    private final RequestQueue queue;
    private final H1Config config;
    private final H1RequestDecoder decoder;
    /** WebSockets the host holds (docs/WEBSOCKETS.md); null when no hub is offered: a handshake is a request. */
    private final WebSocketUpgrade webSockets;
    /** The WebSocket handshake request being read or answered; null otherwise. */
    private InboundRequest webSocketHandshake;
    private ChannelHandlerContext ctx;
    /** This connection's idle clock, header deadline, write timeout and linger; set when the handler is added. */
    private H1ConnectionTimeouts timeouts;

    /** Responses not yet fully written, in request order. */
    private final PendingResponses responses = new PendingResponses();

    /** The request whose body is being read; null between requests. */
    private InboundRequest reading;

    /** No further requests are taken from this connection (error answered, Connection: close, drain). */
    private boolean refusing;
    /**
     * The client itself announced that its last request was read (HTTP/1.0 without keep-alive, or
     * {@code Connection: close}): it sends nothing after it (RFC 9112 §9.6), so there is nothing to linger for.
     */
    private boolean clientSentLast;
    /** The listener is draining: close once the requests already read are answered. */
    private boolean draining;
    private boolean inactive;
    /** The last response is out (or going out); the connection is closing. */
    private boolean closing;
    /** The read-ahead bound; set when the handler is added. */
    private ReadAheadLimit readAhead;

    H1ConnectionHandler(RequestQueue queue, H1Config config, H1RequestDecoder decoder, WebSocketUpgrade webSockets) {
        this.queue = queue;
        this.config = config;
        this.decoder = decoder;
        this.webSockets = webSockets;
    }

    // ---- connection lifecycle ----

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.timeouts = new H1ConnectionTimeouts(ctx, config, decoder, this);
        this.readAhead = new ReadAheadLimit(ctx, decoder, config.maxPipelinedRequests());
    }

    /** Handed over to HTTP/2 (h2c): this handler's timers must not close the connection later. */
    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        timeouts.cancelAll();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        timeouts.armIdleTimer(config.firstDataTimeoutSecs());
        super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        inactive = true;
        timeouts.channelClosed();
        cancelReading();
        responses.cancelAll();
        super.channelInactive(ctx);
    }

    /**
     * Unwritable: response bytes pile up because the client does not take them; arms the write timeout.
     * Writable again: the client took some, which is progress.
     */
    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().isWritable()) {
            timeouts.writeProgressed();
            if (!inactive && readAhead.resumeIfRoom(responses.size())) {
                armHeaderDeadline();
            }
        } else {
            timeouts.armWriteTimer();
        }
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // A reset by the client or an I/O error: nothing sensible can be written any more.
        ctx.close();
    }

    /**
     * The listener stops: an idle connection closes now; a busy one stops taking requests and closes after
     * answering (the last response says {@code Connection: close}). Event loop only.
     */
    void drain() {
        draining = true;
        if (reading != null) {
            return; // the request being read becomes the last one once it is read
        }
        refusing = true;
        PendingResponse last = responses.newest();
        if (last == null) {
            ctx.close();
        } else {
            last.closeConnectionAfter();
        }
    }

    // ---- inbound: parse → queue ----

    /** After each read: a header section in progress starts its deadline, and ends the idle clock. */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        armHeaderDeadline();
        super.channelReadComplete(ctx);
    }

    /**
     * Starts the header deadline for a header section in progress; a request held at the read-ahead bound
     * waits for the connection, not the client, and is not timed until it is decoded.
     */
    private void armHeaderDeadline() {
        if (!readAhead.held() && !refusing && !inactive) {
            timeouts.armHeaderDeadline(readAhead.resumedAtNanos());
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ParsedRequest parsed) {
            onRequest(parsed);
        } else if (msg instanceof HttpContent content) {
            onContent(content);
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    private void onRequest(ParsedRequest parsed) {
        HttpRequest request = parsed.request();
        try {
            if (refusing || inactive) {
                clientSentLast = false; // it sent more than it announced, and may go on: linger before closing
                return;
            }
            timeouts.disarmIdleTimer();
            timeouts.cancelHeaderCheck(); // the header section is complete
            boolean http10 = request.protocolVersion().equals(HttpVersion.HTTP_1_0);
            boolean headRequest = HttpMethod.HEAD.equals(request.method());
            DecoderResult result = request.decoderResult();
            if (result.isFailure()) {
                // The decoder refused the head (H1HeadValidator: version, target, fields, framing, Host); the
                // version may be the broken part: answer 1.1.
                reject(false, false, statusFor(result.cause()));
                return;
            }
            boolean chunked = HttpUtil.isTransferEncodingChunked(request);
            long contentLength = chunked ? -1 : HttpUtil.getContentLength(request, 0L);
            long limit = config.contentLengthLimit();
            if (limit > 0 && contentLength > limit) {
                reject(http10, headRequest, 413); // never read, not even after 100-continue
                return;
            }
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            clientSentLast = !keepAlive;
            PendingResponse response = new PendingResponse(this, ctx, http10, headRequest, queue.backpressure());
            responses.add(response);
            if (!http10 && (chunked || contentLength > 0) && HttpUtil.is100ContinueExpected(request)) {
                response.writeContinue();
            }
            boolean handshake = webSockets != null && !http10 && WebSocketUpgrade.isHandshake(request);
            InboundRequest inbound = new InboundRequest(ctx, queue, response, parsed, limit,
                    handshake ? webSockets : null, this);
            reading = inbound;
            if (chunked || contentLength > 0) { // a bodyless request ends at once: no deadline to schedule
                inbound.watch(TimeUnit.SECONDS.toNanos(config.firstDataTimeoutSecs()), () -> {
                    if (reading == inbound) {
                        abortReading(408); // the client stopped sending its body
                    }
                });
            }
            if (handshake) {
                // After a handshake the bytes are WebSocket frames or, when the app refused, nothing more.
                webSocketHandshake = inbound;
                keepAlive = false;
            }
            if (!keepAlive) {
                refusing = true; // the last request this connection takes
                response.closeConnectionAfter();
            }
        } finally {
            ReferenceCountUtil.release(request);
        }
    }

    private void onContent(HttpContent content) {
        if (reading == null || inactive) {
            content.release(); // the rest of a refused request
            return;
        }
        boolean last = content instanceof LastHttpContent;
        if (content.decoderResult().isFailure()) {
            content.release();
            abortReading(400);
            return;
        }
        RequestBodyBuffer.Flow flow = reading.add(content.content(), last);
        if (flow == RequestBodyBuffer.Flow.TOO_LARGE) {
            abortReading(413); // a chunked body grew past the limit
            return;
        }
        if (flow == RequestBodyBuffer.Flow.REFUSED) {
            abortReading(503); // the host refused it (it is shutting down): answer, never hang
            return;
        }
        if (last) {
            PendingResponse done = reading.response();
            reading = null;
            if (draining) {
                refusing = true;
                done.closeConnectionAfter();
            }
            readAhead.holdIfOver(responses.size()); // the next request waits in the decoder until an answer completes
            maybeIdle();
        }
    }

    /**
     * The request being read ends before its body did (it broke a rule, or the host refused it): answer
     * {@code status} (or cut the response) and close.
     */
    private void abortReading(int status) {
        PendingResponse response = reading.response();
        cancelReading();
        refusing = true;
        clientSentLast = false; // the client may still be sending the body it was cut off in: linger
        response.failResponse(status);
    }

    /** Answers a request that is never submitted (unless its status is unanswered), then closes the connection. */
    private void reject(boolean http10, boolean headRequest, int status) {
        refusing = true;
        if (status == RejectedRequestException.UNANSWERED) {
            closeAfterWrites();
            return;
        }
        PendingResponse response = new PendingResponse(this, ctx, http10, headRequest, queue.backpressure());
        responses.add(response);
        response.failResponse(status);
    }

    /** The validator's status for the rule the head broke; 400 for anything Netty's own parser refused. */
    private static int statusFor(Throwable cause) {
        return cause instanceof RejectedRequestException rejected ? rejected.status() : 400;
    }

    /**
     * Stops reading the current request's body for good. Its exchange is cancelled even when its response
     * is already complete: the host must not wait for body bytes that will never come.
     */
    private void cancelReading() {
        if (reading != null) {
            reading.abandon();
        }
        reading = null;
    }

    // ---- outbound: respond, in request order ----

    /** Moves on to the next response, or closes. */
    @Override
    public void responseComplete(PendingResponse response) {
        if (inactive || !responses.isHead(response)) {
            return; // it waits for its turn; becomeHeadOfLine will report it complete
        }
        if (reading != null && response == reading.response()) {
            // The app answered before reading the whole body; keep the client's bytes flowing.
            ctx.channel().config().setAutoRead(true);
        }
        if (responses.advance()) {
            closeAfterWrites();
            return;
        }
        if (ctx.channel().isWritable() && readAhead.resumeIfRoom(responses.size())) {
            armHeaderDeadline();
        }
        maybeIdle();
    }

    private void maybeIdle() {
        if (!responses.isEmpty() || reading != null || inactive || closing) {
            return;
        }
        if (decoder.headerSectionStartNanos() >= 0 && !draining && !refusing) {
            return; // the next request is arriving: its header deadline runs, not an idle clock
        }
        if (draining || refusing) {
            closeAfterWrites();
        } else {
            timeouts.armIdleTimer(config.persistentTimeoutSecs());
        }
    }

    /**
     * Closes once everything written has left. When the client may still be sending (an upload answered with
     * 413, requests pipelined after a response that closes, bytes of a next request already here, a close
     * the server chose) the output side is shut first and the close follows {@link #LINGER_SECONDS} later
     * (or when the client closes): closing at once would answer those bytes with a reset that can destroy
     * the response before the client reads it. A client that announced its last request, which was read to
     * its end with nothing behind it, sends nothing more: its connection is closed at once, as puma and
     * nginx do, which spares a new-connection-per-request client a shutdown, an end-of-stream read and a
     * timer per connection.
     */
    private void closeAfterWrites() {
        if (closing) {
            return;
        }
        boolean linger = !clientSentLast || reading != null || decoder.holdsBytes();
        closing = true;
        refusing = true;
        timeouts.cancelIdleCheck();
        // Requests behind the closing response can never be answered on this connection.
        responses.cancelAll();
        cancelReading();
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener((ChannelFutureListener) written -> {
            if (linger && written.isSuccess() && ctx.channel() instanceof DuplexChannel duplex && duplex.isOpen()) {
                duplex.shutdownOutput().addListener(shut -> {
                    if (!shut.isSuccess()) {
                        ctx.close();
                    }
                });
                timeouts.closeAfterLinger(LINGER_SECONDS);
            } else {
                ctx.close();
            }
        });
        // The linger starts only once the last bytes are out and the idle timer is off: bytes still stuck
        // here (too few to make the channel unwritable) would otherwise keep the connection open forever.
        timeouts.armWriteTimer();
    }

    /**
     * {@inheritDoc} Arms the write timeout if bytes wait in the channel; if none do, the response is paused
     * only behind an earlier, unfinished one, whose app it waits for rather than the client, and nothing is
     * armed.
     */
    @Override
    public void responsePaused() {
        timeouts.armWriteTimer();
    }

    /** {@inheritDoc} Only a field test unless the write timeout is armed. */
    @Override
    public void writeProgressed() {
        timeouts.writeProgressed();
    }

    // ---- the clocks ----

    @Override
    public boolean busy() {
        return !responses.isEmpty() || reading != null;
    }

    /** {@inheritDoc} Nothing of this request was answered, so the 408 is the whole of its answer. */
    @Override
    public void headerDeadlinePassed() {
        if (inactive || refusing) {
            return;
        }
        // Reading goes on (what comes is discarded: the connection refuses further requests), so that the
        // linger after the 408 can drain a client still sending and the 408 is not lost to a reset.
        reject(false, false, 408);
    }

    // ---- hijack ----

    /**
     * The app took this connection (rack.hijack, through {@code response}'s sink): for a partial hijack
     * ({@code status} > 0) the head goes out first, then the connection stops being HTTP/1.1 and is spliced
     * to {@code app} ({@link Splice}). Bytes the client sent after the hijacked request and the decoder
     * already holds go to the app first. Only the oldest unanswered response can take the connection; any
     * other (an earlier pipelined response is still being written) gets the connection closed instead, as
     * do the requests pipelined behind it, which can never be answered on a hijacked connection. Event loop.
     */
    @Override
    public void hijack(PendingResponse response, int status, List<Map.Entry<String, String>> headers, Channel app,
                       Runnable welcome) {
        if (inactive || closing || !responses.isHead(response)) {
            app.close();
            ctx.close();
            return;
        }
        response.hijacked(status, headers);
        responses.dropHead();
        responses.cancelAll();
        leaveHttp1();
        ctx.flush();
        Splice.install(ctx, decoder, app, welcome);
    }

    // ---- WebSockets ----

    /**
     * The app accepted the WebSocket handshake answered by {@code response} (through its
     * {@link WebSocketUpgrade} sink): the connection stops being HTTP/1.1 and is held by the host. As with a
     * hijack, only the oldest unanswered response can take the connection; otherwise it is closed. Event loop.
     */
    void webSocketAccepted(PendingResponse response, List<Map.Entry<String, String>> headers, boolean sticky) {
        if (inactive || closing || !responses.isHead(response) || webSocketHandshake == null
                || webSocketHandshake.exchange() == null) {
            ctx.close();
            return;
        }
        responses.dropHead();
        leaveHttp1();
        webSockets.install(ctx, response, webSocketHandshake.head(), headers, sticky, webSocketHandshake.exchange(),
                List.of("h2c-upgrade", ctx.name(), "h1-decoder"));
    }

    /**
     * The connection stops being HTTP/1.1 (a hijack, a held WebSocket): no more requests are read or taken,
     * and the idle and write timers, which belong to HTTP/1.1, stop. Event loop.
     */
    private void leaveHttp1() {
        cancelReading();
        closing = true;
        refusing = true;
        timeouts.cancelIdleCheck();
        timeouts.disarmWriteTimer();
    }
}
