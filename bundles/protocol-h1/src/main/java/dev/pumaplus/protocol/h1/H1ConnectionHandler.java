/*
 * One HTTP/1.1 client connection after parsing (parse → queue → ... → respond): turns each request into a
 * RequestHead, submits it to the host's RequestQueue through a RequestBodyBuffer, keeps the responses
 * (PendingResponse) in request order, and applies keep-alive, the size limits, the idle timeouts, the
 * header-section deadline, the read-ahead bound and the response write timeout.
 */
package dev.pumaplus.protocol.h1;

import dev.pumaplus.spi.Exchange;
import dev.pumaplus.spi.RequestBodyBuffer;
import dev.pumaplus.spi.RequestHead;
import dev.pumaplus.spi.RequestQueue;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.nio.channels.FileChannel;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
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
 * <p>Write timeout (puma's WRITE_TIMEOUT): while response bytes wait in the channel because the client does
 * not take them, the connection is closed once none of them has reached the socket for
 * {@link H1Config#writeTimeoutSecs()} seconds; closing cancels its exchanges, so what the host holds for a
 * client that never reads is dropped (the worker's slot was free once the worker wrote its response). Every
 * body byte the socket takes, even part of a chunk, and the channel turning writable again count as progress
 * and restart the period (framing bytes, a few per chunk or response, are not followed). The timer is armed
 * only when the channel becomes unwritable, a response pauses, or a closing connection has bytes left, and
 * only if bytes wait in the channel: a
 * client that keeps up never schedules one.
 *
 * <p>Header deadline: a request's header section must be complete {@link H1Config#headerTimeoutSecs()}
 * seconds after its first byte arrived, however the bytes trickle in; past it the request is answered 408
 * (after the responses before it) and the connection closes. The idle clock (first data, keep-alive) ends
 * with a request's first byte; the header deadline takes over from there.
 *
 * <p>Read-ahead: at most {@link H1Config#maxPipelinedRequests()} requests are read ahead of the one being
 * answered; at that bound the connection stops reading and the decoder stops decoding ({@link
 * H1RequestDecoder#hold}) until a response completes and the channel is writable (a completed response
 * has been handed to the channel, not yet taken by the client), so a client pipelining without reading its
 * answers holds no more than that many requests, and their responses, in the host.
 *
 * <p>Calls go one way: this handler creates and drives each {@link PendingResponse}, which reports back only
 * through {@link PendingResponse.Connection}. Timeouts and the request timings run on the event loop's
 * clock ({@link RequestClock}).
 *
 * <p>Threading: all methods run on the connection's event loop, including the hops made by
 * {@link PendingResponse}; {@link #drain()} must be called there too.
 */
final class H1ConnectionHandler extends ChannelInboundHandlerAdapter
        implements PendingResponse.Connection, RequestBodyBuffer.Submitter {

    private static final InetSocketAddress UNIX_PEER = new InetSocketAddress("127.0.0.1", 0);

    /** Seconds a closing connection keeps reading (and discarding) after its output is shut. */
    static final long LINGER_SECONDS = 2;

    private final RequestQueue queue;
    private final H1Config config;
    private final H1RequestDecoder decoder;
    /** WebSockets the host holds (docs/WEBSOCKETS.md); null when no hub is offered: a handshake is a request. */
    private final WebSocketUpgrade webSockets;
    /** The WebSocket handshake request being read or answered, and its exchange; null otherwise. */
    private RequestHead webSocketHead;
    private Exchange webSocketExchange;
    private ChannelHandlerContext ctx;

    /** Responses not yet fully written, oldest first; the first is the one being written. */
    private final ArrayDeque<PendingResponse> responses = new ArrayDeque<>();

    // The request whose body is being read (all null between requests).
    private PendingResponse reading;
    private RequestHead readingHead;
    private RequestBodyBuffer readingBody;

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
    /**
     * The idle clock: the timeout that runs (first data or keep-alive, in ns; 0 while the connection is busy
     * or closing), since when (event loop ticker), and the decoder's read count then. Starting and stopping
     * it per request only writes these fields; {@link #idleCheck} is scheduled once and, when it fires early
     * because the clock was restarted meanwhile, moves itself to the new deadline.
     */
    private long idleTimeoutNanos;
    private long idleSinceNanos;
    private long readsAtIdle;
    /** The pending check of the idle clock, or null; due at {@link #idleCheckAtNanos}. */
    private ScheduledFuture<?> idleCheck;
    private long idleCheckAtNanos;
    /**
     * The close at the end of the linger, or null; cancelled when the client closes first, so that a closed
     * connection is not kept reachable for the rest of {@link #LINGER_SECONDS} (with a new connection per
     * request that was thousands of connections' objects, promoted to the old generation).
     */
    private ScheduledFuture<?> lingerClose;
    /** The write timeout's next check; non-null while it is armed (see {@link #armWriteTimer()}). */
    private ScheduledFuture<?> writeTimer;
    /** Event loop ticker time of the last write progress seen while {@link #writeTimer} is armed. */
    private long lastWriteProgressNanos;
    /** The header deadline's check, or null; due for the header section that began at {@link #headerStartNanos}. */
    private ScheduledFuture<?> headerCheck;
    private long headerStartNanos;
    /** The decoder is held at the read-ahead bound (and auto-read is off). */
    private boolean readAheadFull;
    /** When the decoder was last resumed: a held request's header clock starts no earlier. */
    private long resumedAtNanos = Long.MIN_VALUE;

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
    }

    /** Handed over to HTTP/2 (h2c): this handler's timers must not close the connection later. */
    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancelIdleCheck();
        cancelHeaderCheck();
        disarmWriteTimer();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        armIdleTimer(config.firstDataTimeoutSecs());
        super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        inactive = true;
        cancelIdleCheck();
        cancelHeaderCheck();
        disarmWriteTimer();
        if (lingerClose != null) {
            lingerClose.cancel(false);
            lingerClose = null;
        }
        cancelReading();
        PendingResponse r;
        while ((r = responses.poll()) != null) {
            r.cancel();
        }
        super.channelInactive(ctx);
    }

    /**
     * Unwritable: response bytes pile up because the client does not take them; arms the write timeout.
     * Writable again: the client took some, which is progress.
     */
    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().isWritable()) {
            writeProgressed();
            if (readAheadFull && responses.size() <= config.maxPipelinedRequests() && !inactive) {
                resumeReadAhead();
            }
        } else {
            armWriteTimer();
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
        PendingResponse last = responses.peekLast();
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
            disarmIdleTimer();
            cancelHeaderCheck(); // the header section is complete
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
            PendingResponse response = new PendingResponse(this, ctx, http10, headRequest);
            enqueue(response);
            if (!http10 && (chunked || contentLength > 0) && HttpUtil.is100ContinueExpected(request)) {
                response.writeContinue();
            }
            reading = response;
            readingHead = head(request, parsed);
            readingBody = new RequestBodyBuffer(limit, this);
            if (chunked || contentLength > 0) { // a bodyless request ends at once: no deadline to schedule
                RequestBodyBuffer watched = readingBody;
                readingBody.watch(ctx.executor(), TimeUnit.SECONDS.toNanos(config.firstDataTimeoutSecs()), () -> {
                    if (readingBody == watched) {
                        abortReading(408); // the client stopped sending its body
                    }
                });
            }
            if (webSockets != null && !http10 && WebSocketUpgrade.isHandshake(request)) {
                // After a handshake the bytes are WebSocket frames or, when the app refused, nothing more.
                webSocketHead = readingHead;
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
        PendingResponse response = reading;
        if (response == null || inactive) {
            content.release(); // the rest of a refused request
            return;
        }
        boolean last = content instanceof LastHttpContent;
        if (content.decoderResult().isFailure()) {
            content.release();
            abortReading(400);
            return;
        }
        RequestBodyBuffer.Flow flow = readingBody.add(content.content(), last);
        if (flow == RequestBodyBuffer.Flow.TOO_LARGE) {
            abortReading(413); // a chunked body grew past the limit
            return;
        }
        if (flow == RequestBodyBuffer.Flow.REFUSED) {
            abortReading(503); // the host refused it (it is shutting down): answer, never hang
            return;
        }
        if (last) {
            PendingResponse done = reading;
            endReading();
            if (draining) {
                refusing = true;
                done.closeConnectionAfter();
            }
            if (responses.size() > config.maxPipelinedRequests()) {
                holdReadAhead(); // the next request waits in the decoder until an answer completes
            }
            maybeIdle();
        }
    }

    /**
     * {@inheritDoc} Called by the reading request's {@link RequestBodyBuffer}: submits it to the host with
     * its response as the sink.
     */
    @Override
    public Exchange submit(ByteBuf body, FileChannel bodyFile) {
        if (readingHead == webSocketHead && webSocketHead != null) {
            body.release(); // a handshake is a GET: nothing to send
            RequestBodyBuffer.closeSpool(bodyFile);
            webSocketExchange = webSockets.hub().offer(ctx.channel(), readingHead,
                    webSockets.sink(reading, this, ctx));
            reading.submitted(webSocketExchange);
            return webSocketExchange;
        }
        Exchange exchange = queue.submit(ctx.channel(), readingHead, body, bodyFile, reading);
        reading.submitted(exchange);
        return exchange;
    }

    /**
     * The request being read ends before its body did (it broke a rule, or the host refused it): answer
     * {@code status} (or cut the response) and close.
     */
    private void abortReading(int status) {
        PendingResponse response = reading;
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
        PendingResponse response = new PendingResponse(this, ctx, http10, headRequest);
        enqueue(response);
        response.failResponse(status);
    }

    /** The validator's status for the rule the head broke; 400 for anything Netty's own parser refused. */
    private static int statusFor(Throwable cause) {
        return cause instanceof RejectedRequestException rejected ? rejected.status() : 400;
    }

    private RequestHead head(HttpRequest request, ParsedRequest parsed) {
        List<Map.Entry<String, String>> headers = new ArrayList<>(request.headers().size() + 1);
        // The authority the request names stands in the Host field (RFC 9112 §3.2.2: an absolute-form
        // target's wins over Host), added first when an HTTP/1.0 request had no Host, as h2 does :authority.
        String authority = parsed.authority();
        if (authority != null && !request.headers().contains(HttpHeaderNames.HOST)) {
            headers.add(Map.entry("Host", authority));
        }
        for (Iterator<Map.Entry<String, String>> it = request.headers().iteratorAsString(); it.hasNext(); ) {
            Map.Entry<String, String> h = it.next();
            boolean host = authority != null && h.getKey().equalsIgnoreCase("host");
            headers.add(Map.entry(h.getKey(), host ? authority : h.getValue()));
        }
        return new RequestHead(
                request.method().name(),
                request.uri(),
                request.protocolVersion().text(),
                ctx.pipeline().get(SslHandler.class) != null ? "https" : "http",
                inet(ctx.channel().localAddress()),
                peer(ctx.channel().remoteAddress()),
                Collections.unmodifiableList(headers), // read-only without copying the list again
                parsed.firstByteNanos(),
                parsed.headersParsedNanos());
    }

    private static InetSocketAddress inet(SocketAddress address) {
        return address instanceof InetSocketAddress inet ? inet : null;
    }

    /** The client's address; a unix:// bind's peer is 127.0.0.1, as puma gives REMOTE_ADDR there. */
    private static InetSocketAddress peer(SocketAddress address) {
        return address instanceof InetSocketAddress inet ? inet : UNIX_PEER;
    }

    /**
     * Stops reading the current request's body for good. Its exchange is cancelled even when its response
     * is already complete: the host must not wait for body bytes that will never come.
     */
    private void cancelReading() {
        if (readingBody != null) {
            readingBody.abandon();
        }
        endReading();
    }

    private void endReading() {
        reading = null;
        readingHead = null;
        readingBody = null;
    }

    // ---- outbound: respond, in request order ----

    private void enqueue(PendingResponse response) {
        responses.add(response);
        if (responses.size() == 1) {
            response.becomeHeadOfLine();
        }
    }

    /** Moves on to the next response, or closes. */
    @Override
    public void responseComplete(PendingResponse response) {
        if (inactive || responses.peekFirst() != response) {
            return; // it waits for its turn; becomeHeadOfLine will report it complete
        }
        if (response == reading) {
            // The app answered before reading the whole body; keep the client's bytes flowing.
            ctx.channel().config().setAutoRead(true);
        }
        while (true) {
            PendingResponse done = responses.poll();
            if (done.closesAfter()) {
                closeAfterWrites();
                return;
            }
            PendingResponse next = responses.peekFirst();
            if (next == null || !next.becomeHeadOfLine()) {
                break;
            }
        }
        if (readAheadFull && responses.size() <= config.maxPipelinedRequests() && ctx.channel().isWritable()) {
            resumeReadAhead();
        }
        maybeIdle();
    }

    /** Stops reading: the read-ahead bound is reached. */
    private void holdReadAhead() {
        readAheadFull = true;
        decoder.hold();
        ctx.channel().config().setAutoRead(false);
    }

    /**
     * Below the bound again: decodes the requests the decoder kept (each is submitted before this returns,
     * and may hold it again) and, unless that happened, reads on.
     */
    private void resumeReadAhead() {
        readAheadFull = false;
        resumedAtNanos = RequestClock.nanoTime(ctx.executor());
        // On before decoding: a request decoded now turns it off again if the bound is hit.
        ctx.channel().config().setAutoRead(true);
        try {
            decoder.resume(ctx.pipeline().context(decoder));
        } catch (Exception e) {
            ctx.close(); // the decoder reports a malformed request as a message; anything else ends the connection
            return;
        }
        armHeaderDeadline();
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
            armIdleTimer(config.persistentTimeoutSecs());
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
        cancelIdleCheck();
        // Requests behind the closing response can never be answered on this connection.
        PendingResponse behind;
        while ((behind = responses.poll()) != null) {
            behind.cancel();
        }
        cancelReading();
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener((ChannelFutureListener) written -> {
            if (linger && written.isSuccess() && ctx.channel() instanceof DuplexChannel duplex && duplex.isOpen()) {
                duplex.shutdownOutput().addListener(shut -> {
                    if (!shut.isSuccess()) {
                        ctx.close();
                    }
                });
                lingerClose = ctx.executor().schedule(() -> ctx.close(), LINGER_SECONDS, TimeUnit.SECONDS);
            } else {
                ctx.close();
            }
        });
        // The linger starts only once the last bytes are out and the idle timer is off: bytes still stuck
        // here (too few to make the channel unwritable) would otherwise keep the connection open forever.
        armWriteTimer();
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
        if (inactive || closing || responses.peekFirst() != response) {
            app.close();
            ctx.close();
            return;
        }
        response.hijacked(status, headers);
        responses.poll();
        PendingResponse behind;
        while ((behind = responses.poll()) != null) {
            behind.cancel();
        }
        cancelReading();
        closing = true;
        refusing = true;
        cancelIdleCheck();
        disarmWriteTimer();
        ctx.flush();
        Channel client = ctx.channel();
        client.config().setAutoRead(false);
        // Both splice handlers go in before WELCOME lets the app write; the client's goes in before the
        // decoder leaves, so the bytes the decoder still holds (it hands them on when removed) reach the app,
        // after WELCOME since they are written from this same thread.
        // Half-closes pass through the splice (Splice), so neither side may treat a FIN as a close any more.
        client.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
        app.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
        app.pipeline().addLast("splice", new Splice(client));
        ctx.pipeline().addLast("splice", new Splice(app));
        welcome.run();
        ctx.pipeline().remove(this);
        ctx.pipeline().remove(decoder);
        app.config().setAutoRead(true);
        client.config().setAutoRead(true);
    }

    // ---- WebSockets ----

    /**
     * The app accepted the WebSocket handshake answered by {@code response} (through its
     * {@link WebSocketUpgrade} sink): the connection stops being HTTP/1.1 and is held by the host. As with a
     * hijack, only the oldest unanswered response can take the connection; otherwise it is closed. Event loop.
     */
    void webSocketAccepted(PendingResponse response, List<Map.Entry<String, String>> headers, boolean sticky) {
        if (inactive || closing || responses.peekFirst() != response || webSocketExchange == null) {
            ctx.close();
            return;
        }
        responses.poll();
        cancelReading();
        closing = true;
        refusing = true;
        cancelIdleCheck();
        disarmWriteTimer();
        webSockets.install(ctx, response, webSocketHead, headers, sticky, webSocketExchange,
                List.of("h2c-upgrade", ctx.name(), "h1-decoder"));
    }

    // ---- timeouts ----

    /**
     * Starts the header deadline if a header section is in progress and none runs yet; a request held at the
     * read-ahead bound waits for the connection, not the client, and is not timed until it is decoded.
     */
    private void armHeaderDeadline() {
        long seconds = config.headerTimeoutSecs();
        long start = decoder.headerSectionStartNanos();
        if (seconds <= 0 || start < 0 || headerCheck != null || readAheadFull || refusing || inactive) {
            return;
        }
        disarmIdleTimer(); // a request has begun: the connection is no longer idle
        headerStartNanos = Math.max(start, resumedAtNanos);
        long due = headerStartNanos + TimeUnit.SECONDS.toNanos(seconds) - RequestClock.nanoTime(ctx.executor());
        headerCheck = ctx.executor().schedule(this::checkHeaderDeadline, due, TimeUnit.NANOSECONDS);
    }

    /**
     * The header deadline passed with the header section still incomplete: 408 after the responses before
     * it, then close. Nothing of this request was answered, so the 408 is the whole of its answer.
     */
    private void checkHeaderDeadline() {
        headerCheck = null;
        if (inactive || refusing || decoder.headerSectionStartNanos() < 0) {
            return;
        }
        // Reading goes on (what comes is discarded: the connection refuses further requests), so that the
        // linger after the 408 can drain a client still sending and the 408 is not lost to a reset.
        reject(false, false, 408);
    }

    private void cancelHeaderCheck() {
        if (headerCheck != null) {
            headerCheck.cancel(false);
            headerCheck = null;
        }
    }

    /** Starts the idle clock with {@code seconds} (none if not positive): closed if no byte comes in time. */
    private void armIdleTimer(long seconds) {
        if (seconds <= 0) {
            idleTimeoutNanos = 0;
            return;
        }
        long now = RequestClock.nanoTime(ctx.executor());
        long deadline = now + TimeUnit.SECONDS.toNanos(seconds);
        if (idleCheck != null && idleCheckAtNanos > deadline) {
            cancelIdleCheck(); // a shorter timeout than the one the check was set for (first data -> keep-alive)
        }
        idleTimeoutNanos = TimeUnit.SECONDS.toNanos(seconds);
        idleSinceNanos = now;
        readsAtIdle = decoder.reads();
        if (idleCheck == null) {
            scheduleIdleCheck(deadline);
        }
    }

    private void scheduleIdleCheck(long deadline) {
        idleCheckAtNanos = deadline;
        idleCheck = ctx.executor().schedule(this::checkIdle,
                deadline - RequestClock.nanoTime(ctx.executor()), TimeUnit.NANOSECONDS);
    }

    private void checkIdle() {
        idleCheck = null;
        if (idleTimeoutNanos == 0 || !responses.isEmpty() || reading != null) {
            return; // busy: the clock starts again when the connection is next idle
        }
        long deadline = idleSinceNanos + idleTimeoutNanos;
        if (deadline - RequestClock.nanoTime(ctx.executor()) > 0) {
            scheduleIdleCheck(deadline); // the clock was restarted since this check was set
        } else if (decoder.reads() == readsAtIdle && pendingWriteBytes() == 0) {
            ctx.close(); // no byte in time: close without a response, as puma does
        } else {
            // The last response is still on its way to a slow reader (the write timeout watches that one),
            // or, with header_timeout off, bytes of a request are trickling in (with it on, the first byte
            // ended this clock): the connection is not idle yet.
            armIdleTimer(TimeUnit.NANOSECONDS.toSeconds(idleTimeoutNanos));
        }
    }

    /** Stops the idle clock (a request started); the pending check, if any, will find nothing to do. */
    private void disarmIdleTimer() {
        idleTimeoutNanos = 0;
    }

    /** Stops the idle clock and cancels its check: the connection is closing or leaving this handler. */
    private void cancelIdleCheck() {
        idleTimeoutNanos = 0;
        if (idleCheck != null) {
            idleCheck.cancel(false);
            idleCheck = null;
        }
    }

    /**
     * {@inheritDoc} Arms the write timeout if bytes wait in the channel; if none do, the response is paused
     * only behind an earlier, unfinished one, whose app it waits for rather than the client, and nothing is
     * armed.
     */
    @Override
    public void responsePaused() {
        armWriteTimer();
    }

    /** {@inheritDoc} Only a field test unless the write timeout is armed. */
    @Override
    public void writeProgressed() {
        if (writeTimer != null) {
            lastWriteProgressNanos = RequestClock.nanoTime(ctx.executor());
        }
    }

    /** Starts the write timeout if it is configured, not armed yet and bytes wait in the channel. */
    private void armWriteTimer() {
        long seconds = config.writeTimeoutSecs();
        if (writeTimer != null || seconds <= 0 || inactive || pendingWriteBytes() == 0) {
            return;
        }
        lastWriteProgressNanos = RequestClock.nanoTime(ctx.executor());
        writeTimer = ctx.executor().schedule(this::checkWriteProgress, seconds, TimeUnit.SECONDS);
    }

    /**
     * The write timeout's check. Progress only moves {@link #lastWriteProgressNanos} (cheaper than
     * rescheduling on every write), so this re-arms for the rest of the period after the last progress;
     * once nothing waits in the channel it ends, and the next stall arms it again.
     */
    private void checkWriteProgress() {
        writeTimer = null;
        if (inactive || pendingWriteBytes() == 0) {
            return;
        }
        long timeoutNanos = TimeUnit.SECONDS.toNanos(config.writeTimeoutSecs());
        long stalledNanos = RequestClock.nanoTime(ctx.executor()) - lastWriteProgressNanos;
        if (stalledNanos < timeoutNanos) {
            writeTimer = ctx.executor().schedule(this::checkWriteProgress, timeoutNanos - stalledNanos,
                    TimeUnit.NANOSECONDS);
            return;
        }
        // Not one byte taken for the whole period: the client is not reading. Closing cancels the
        // exchanges (channelInactive), which frees any worker paused on this connection.
        ctx.close();
    }

    private void disarmWriteTimer() {
        if (writeTimer != null) {
            writeTimer.cancel(false);
            writeTimer = null;
        }
    }

    /**
     * Bytes written to the channel and not yet taken by the socket (Netty's outbound buffer, with a small
     * per-write overhead); 0 once the channel is closed. What IdleStateHandler's output observation reads too.
     */
    private long pendingWriteBytes() {
        ChannelOutboundBuffer out = ctx.channel().unsafe().outboundBuffer();
        return out == null ? 0 : out.totalPendingWriteBytes();
    }
}
