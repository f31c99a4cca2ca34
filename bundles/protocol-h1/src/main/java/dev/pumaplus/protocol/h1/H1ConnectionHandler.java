/*
 * One HTTP/1.1 client connection after parsing (parse → queue → ... → respond): turns each request into a
 * RequestHead, buffers or streams its body, submits it to the host's RequestQueue, keeps the responses in
 * request order, and applies keep-alive, the size limits, the idle timeouts and the response write timeout.
 */
package dev.pumaplus.protocol.h1;

import dev.pumaplus.spi.Exchange;
import dev.pumaplus.spi.RequestHead;
import dev.pumaplus.spi.RequestQueue;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelProgressiveFutureListener;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ScheduledFuture;

/**
 * Sits after {@link H1RequestDecoder}. Every request read is submitted at once (pipelining: the host's
 * queue enforces fairness across connections), as soon as it is runnable: with its whole body when that is
 * at most {@link H1Limits#MAX_BUFFERED_BODY_BYTES}, else with the first 1 MiB and the rest streamed
 * through {@link Exchange#writeBody}, pausing reads while the host asks to.
 *
 * <p>Requests that break a limit or do not parse are answered here (414, 431, 413, 400, 505), never
 * submitted, and the connection closes after that answer. Responses leave in request order: see
 * {@link PendingResponse}. When the client goes away every pending exchange is cancelled; a FIN from the
 * client counts as gone (half-closure is not allowed), so a request whose client hung up never reaches a
 * worker. A response that ends the connection is followed by a shut output and a short linger, so a client
 * still sending (an upload answered with 413) reads the answer instead of a reset.
 *
 * <p>Write timeout (puma's WRITE_TIMEOUT): while response bytes wait in the channel because the client does
 * not take them, the connection is closed once none of them has reached the socket for
 * {@link H1Config#writeTimeoutSecs()} seconds; closing cancels its exchanges, so a worker paused on a client
 * that never reads gets its slot back. Every body byte the socket takes, even part of a chunk, and the
 * channel turning writable again count as progress and restart the period (framing bytes, a few per chunk
 * or response, are not followed). The timer is armed only when the channel becomes unwritable, a response
 * pauses its worker, or a closing connection has bytes left, and only if bytes wait in the channel: a
 * client that keeps up never schedules one.
 *
 * <p>Threading: all methods run on the connection's event loop, including the hops made by
 * {@link PendingResponse}; {@link #drain()} must be called there too.
 */
final class H1ConnectionHandler extends ChannelInboundHandlerAdapter {

    /** Seconds a closing connection keeps reading (and discarding) after its output is shut. */
    static final long LINGER_SECONDS = 2;

    private final RequestQueue queue;
    private final H1Config config;
    private final H1RequestDecoder decoder;
    private ChannelHandlerContext ctx;

    /** Responses not yet fully written, oldest first; the first is the one being written. */
    private final ArrayDeque<PendingResponse> responses = new ArrayDeque<>();

    // The request whose body is being read (null between requests).
    private PendingResponse reading;
    private RequestHead readingHead;
    private CompositeByteBuf readingBody;
    private long readingBytes;
    private Exchange readingExchange;

    /** No further requests are taken from this connection (error answered, Connection: close, drain). */
    private boolean refusing;
    /** The listener is draining: close once the requests already read are answered. */
    private boolean draining;
    private boolean inactive;
    /** The last response is out (or going out); the connection is closing. */
    private boolean closing;
    private ScheduledFuture<?> idleTimer;
    /** The write timeout's next check; non-null while it is armed (see {@link #armWriteTimer()}). */
    private ScheduledFuture<?> writeTimer;
    /** {@link System#nanoTime()} of the last write progress seen while {@link #writeTimer} is armed. */
    private long lastWriteProgressNanos;

    H1ConnectionHandler(RequestQueue queue, H1Config config, H1RequestDecoder decoder) {
        this.queue = queue;
        this.config = config;
        this.decoder = decoder;
    }

    // ---- connection lifecycle ----

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    /** Handed over to HTTP/2 (h2c): this handler's timers must not close the connection later. */
    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        disarmIdleTimer();
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
        disarmIdleTimer();
        disarmWriteTimer();
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
        if (reading == null) {
            refusing = true;
        }
        if (responses.isEmpty() && reading == null) {
            ctx.close();
        }
    }

    // ---- inbound: parse → queue ----

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
                return;
            }
            disarmIdleTimer();
            boolean http10 = request.protocolVersion().equals(HttpVersion.HTTP_1_0);
            boolean headRequest = HttpMethod.HEAD.equals(request.method());
            DecoderResult result = request.decoderResult();
            if (result.isFailure()) {
                reject(false, false, statusFor(result.cause())); // the version is unknown: answer 1.1
                return;
            }
            if (!http10 && !request.protocolVersion().equals(HttpVersion.HTTP_1_1)) {
                reject(false, headRequest, 505);
                return;
            }
            if (request.uri().length() > H1Limits.MAX_TARGET_BYTES) {
                reject(http10, headRequest, 414);
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
            PendingResponse response = new PendingResponse(this, ctx.channel(), http10, headRequest, keepAlive);
            enqueue(response);
            if (!http10 && (chunked || contentLength > 0) && HttpUtil.is100ContinueExpected(request)) {
                response.writeContinue();
            }
            reading = response;
            readingHead = head(request, parsed);
            readingBytes = 0;
            readingExchange = null;
            if (!keepAlive) {
                refusing = true;
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
        ByteBuf bytes = content.content();
        readingBytes += bytes.readableBytes();
        long limit = config.contentLengthLimit();
        if (limit > 0 && readingBytes > limit) {
            content.release();
            abortReading(413); // a chunked body grew past the limit
            return;
        }
        if (readingExchange != null) {
            streamBody(bytes, last);
        } else {
            if (readingBody == null) {
                readingBody = ctx.alloc().compositeBuffer(Integer.MAX_VALUE);
            }
            if (bytes.isReadable()) {
                readingBody.addComponent(true, bytes);
            } else {
                bytes.release();
            }
            int max = H1Limits.MAX_BUFFERED_BODY_BYTES;
            if (readingBytes > max || (readingBytes == max && !last)) {
                ByteBuf first = readingBody.readRetainedSlice(max);
                ByteBuf rest = readingBody.readRetainedSlice(readingBody.readableBytes());
                releaseReadingBody();
                submit(first, false);
                if (readingExchange != null && (rest.isReadable() || last)) {
                    streamBody(rest, last);
                } else {
                    rest.release();
                }
            } else if (last) {
                ByteBuf body = readingBody;
                readingBody = null;
                submit(body, true);
            }
        }
        if (last) {
            reading = null;
            readingHead = null;
            readingExchange = null;
            if (draining) {
                refusing = true;
            }
            ctx.channel().config().setAutoRead(true);
            maybeIdle();
        }
    }

    private void submit(ByteBuf body, boolean complete) {
        PendingResponse response = reading;
        try {
            Exchange exchange = queue.submit(ctx.channel(), readingHead, body, complete, response);
            response.exchange(exchange);
            readingExchange = exchange;
        } catch (RuntimeException e) {
            // The host refused the request (e.g. it is shutting down): answer, never hang.
            reading = null;
            readingHead = null;
            refusing = true;
            response.failResponse(503);
        }
    }

    private void streamBody(ByteBuf bytes, boolean last) {
        if (!readingExchange.writeBody(bytes, last) && !last) {
            ctx.channel().config().setAutoRead(false);
        }
    }

    /** The host can take more request body (it had refused some through {@code writeBody}). */
    void resumeReading() {
        if (!inactive && !ctx.channel().config().isAutoRead()) {
            ctx.channel().config().setAutoRead(true);
            ctx.read();
        }
    }

    /** The request being read broke a rule mid-body: answer {@code status} (or cut the response) and close. */
    private void abortReading(int status) {
        PendingResponse response = reading;
        cancelReading();
        refusing = true;
        response.failResponse(status);
    }

    /** Answers a request that is never submitted, then closes the connection. */
    private void reject(boolean http10, boolean headRequest, int status) {
        refusing = true;
        PendingResponse response = new PendingResponse(this, ctx.channel(), http10, headRequest, false);
        enqueue(response);
        response.failResponse(status);
    }

    private static int statusFor(Throwable cause) {
        if (cause instanceof TooLongHttpLineException) {
            return 414;
        }
        if (cause instanceof TooLongHttpHeaderException) {
            return 431;
        }
        return 400;
    }

    private RequestHead head(HttpRequest request, ParsedRequest parsed) {
        List<Map.Entry<String, String>> headers = new ArrayList<>(request.headers().size());
        for (Iterator<Map.Entry<String, String>> it = request.headers().iteratorAsString(); it.hasNext(); ) {
            Map.Entry<String, String> h = it.next();
            headers.add(Map.entry(h.getKey(), h.getValue()));
        }
        return new RequestHead(
                request.method().name(),
                request.uri(),
                request.protocolVersion().text(),
                ctx.pipeline().get(SslHandler.class) != null ? "https" : "http",
                inet(ctx.channel().localAddress()),
                inet(ctx.channel().remoteAddress()),
                List.copyOf(headers),
                parsed.firstByteNanos(),
                parsed.headersParsedNanos());
    }

    private static InetSocketAddress inet(SocketAddress address) {
        return address instanceof InetSocketAddress inet ? inet : null;
    }

    /**
     * Stops reading the current request's body for good. Its exchange is cancelled even when its response
     * is already complete: the host must not wait for body bytes that will never come.
     */
    private void cancelReading() {
        releaseReadingBody();
        if (readingExchange != null) {
            readingExchange.cancel();
        }
        reading = null;
        readingHead = null;
        readingExchange = null;
    }

    private void releaseReadingBody() {
        if (readingBody != null) {
            readingBody.release();
            readingBody = null;
        }
    }

    // ---- outbound: respond, in request order ----

    private void enqueue(PendingResponse response) {
        responses.add(response);
        if (responses.size() == 1) {
            response.becomeHeadOfLine();
        }
    }

    void write(Object buf) {
        ctx.write(buf, ctx.voidPromise());
    }

    /**
     * Writes {@code buf} and calls {@code written} on the event loop once it has left for the socket or
     * failed (then it was released): how a response counts its unwritten body bytes. The promise is a
     * progressive one so that {@code written} also hears of each part the socket takes (write progress).
     */
    void write(Object buf, ChannelProgressiveFutureListener written) {
        ctx.write(buf, ctx.newProgressivePromise().addListener(written));
    }

    /**
     * Writes an empty buffer behind everything written so far; {@code sent} runs on the event loop once all
     * of it has reached the socket (or the write failed). How a response learns its last byte left (T6).
     */
    void writeEnd(ChannelFutureListener sent) {
        ctx.write(Unpooled.EMPTY_BUFFER, ctx.newPromise().addListener(sent));
    }

    void flush() {
        ctx.flush();
    }

    /**
     * Whether {@code response} must end the connection because the listener is draining and it is the last
     * response this connection will give.
     */
    boolean closesAfter(PendingResponse response) {
        return draining && reading == null && responses.peekLast() == response;
    }

    /** Called by a response once it is complete; moves on to the next one or closes. */
    void responseComplete(PendingResponse response) {
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
        maybeIdle();
    }

    private void maybeIdle() {
        if (!responses.isEmpty() || reading != null || inactive || closing) {
            return;
        }
        if (draining || refusing) {
            closeAfterWrites();
        } else {
            armIdleTimer(config.persistentTimeoutSecs());
        }
    }

    /**
     * Closes once everything written has left. On a socket the output side is shut first and the close
     * follows {@link #LINGER_SECONDS} later (or when the client closes): a client still sending (an upload
     * answered with 413, pipelined requests after a {@code Connection: close}) would otherwise get a reset
     * that can destroy the response before it reads it.
     */
    private void closeAfterWrites() {
        if (closing) {
            return;
        }
        closing = true;
        refusing = true;
        disarmIdleTimer();
        // Requests behind the closing response can never be answered on this connection.
        PendingResponse behind;
        while ((behind = responses.poll()) != null) {
            behind.cancel();
        }
        cancelReading();
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener((ChannelFutureListener) written -> {
            if (written.isSuccess() && ctx.channel() instanceof DuplexChannel duplex && duplex.isOpen()) {
                duplex.shutdownOutput().addListener(shut -> {
                    if (!shut.isSuccess()) {
                        ctx.close();
                    }
                });
                ctx.executor().schedule(() -> ctx.close(), LINGER_SECONDS, TimeUnit.SECONDS);
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
    void hijack(PendingResponse response, int status, List<Map.Entry<String, String>> headers,
                io.netty.channel.Channel app, Runnable welcome) {
        if (inactive || closing || responses.peekFirst() != response || !response.headOfLine()) {
            app.close();
            ctx.close();
            return;
        }
        ByteBuf head = status > 0 ? response.hijackHead(status, headers) : null;
        response.hijacked();
        responses.poll();
        PendingResponse behind;
        while ((behind = responses.poll()) != null) {
            behind.cancel();
        }
        cancelReading();
        closing = true;
        refusing = true;
        disarmIdleTimer();
        disarmWriteTimer();
        if (head != null) {
            ctx.write(head, ctx.voidPromise());
        }
        ctx.flush();
        io.netty.channel.Channel client = ctx.channel();
        client.config().setAutoRead(false);
        // Both splice handlers go in before WELCOME lets the app write; the client's goes in before the
        // decoder leaves, so the bytes the decoder still holds (it hands them on when removed) reach the app,
        // after WELCOME since they are written from this same thread.
        // Half-closes pass through the splice (Splice), so neither side may treat a FIN as a close any more.
        client.config().setOption(io.netty.channel.ChannelOption.ALLOW_HALF_CLOSURE, true);
        app.config().setOption(io.netty.channel.ChannelOption.ALLOW_HALF_CLOSURE, true);
        app.pipeline().addLast("splice", new Splice(client));
        ctx.pipeline().addLast("splice", new Splice(app));
        welcome.run();
        ctx.pipeline().remove(this);
        ctx.pipeline().remove(decoder);
        app.config().setAutoRead(true);
        client.config().setAutoRead(true);
    }

    // ---- timeouts ----

    private void armIdleTimer(long seconds) {
        disarmIdleTimer();
        if (seconds <= 0) {
            return;
        }
        long readsAtArm = decoder.reads();
        idleTimer = ctx.executor().schedule(() -> {
            idleTimer = null;
            if (!responses.isEmpty() || reading != null) {
                return;
            }
            if (decoder.reads() == readsAtArm && pendingWriteBytes() == 0) {
                ctx.close(); // no byte in time: close without a response, as puma does
            } else {
                // Bytes of a request are trickling in, or the last response is still on its way to a slow
                // reader (the write timeout watches that one): the connection is not idle yet.
                armIdleTimer(seconds);
            }
        }, seconds, TimeUnit.SECONDS);
    }

    private void disarmIdleTimer() {
        if (idleTimer != null) {
            idleTimer.cancel(false);
            idleTimer = null;
        }
    }

    /**
     * A response paused its worker because too much of its body waits (called through
     * {@link PendingResponse}, after the writes that made it pause). Arms the write timeout if bytes wait in
     * the channel; if none do, the response is paused only behind an earlier, unfinished one, whose app it
     * waits for rather than the client, and nothing is armed. Event loop.
     */
    void responsePaused() {
        armWriteTimer();
    }

    /**
     * Some response bytes reached the socket. Only a field test unless the write timeout is armed, since
     * it runs for every body write. Event loop.
     */
    void writeProgressed() {
        if (writeTimer != null) {
            lastWriteProgressNanos = System.nanoTime();
        }
    }

    /** Starts the write timeout if it is configured, not armed yet and bytes wait in the channel. */
    private void armWriteTimer() {
        long seconds = config.writeTimeoutSecs();
        if (writeTimer != null || seconds <= 0 || inactive || pendingWriteBytes() == 0) {
            return;
        }
        lastWriteProgressNanos = System.nanoTime();
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
        long stalledNanos = System.nanoTime() - lastWriteProgressNanos;
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
