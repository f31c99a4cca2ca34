/*
 * One request's response on an HTTP/1.1 connection (the respond step of ... → app → respond): takes the head
 * and body the host delivers, has H1ResponseEncoder frame them, and writes them in request order, holding
 * them while an earlier pipelined response is still being written; asks the host to hold the rest while too
 * much of the body waits to reach the client, and tells the host when the response's last byte left (T6).
 */
package dev.pumaplus.protocol.h1;

import dev.pumaplus.spi.Exchange;
import dev.pumaplus.spi.ResponseBackpressure;
import dev.pumaplus.spi.ResponseSink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelProgressiveFuture;
import io.netty.channel.ChannelProgressiveFutureListener;
import io.netty.channel.FileRegion;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.ReferenceCounted;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;

/**
 * The {@link ResponseSink} of one exchange, and its place in the connection's response order. Its
 * connection ({@link H1ConnectionHandler}) creates it, calls it to write, and hears back only through
 * {@link Connection}.
 *
 * <p>Threading: the {@code ResponseSink} methods are called by host threads; each hops to the connection's
 * event loop with {@code execute}, which keeps their order. Every other method and all state belong to
 * that event loop. Output is written only while this response is the oldest unfinished one of its
 * connection ("head of line"); before that it is held in {@link #parts} and written when its turn comes.
 *
 * <p>Backpressure ({@link ResponseBackpressure}): the response body bytes {@code body} accepted that have not
 * yet been written to the socket (still queued for the event loop, held in {@link #parts} behind an earlier
 * response, or in the channel's outbound buffer because the client reads slowly) are counted; {@code body}
 * returns false above the high-water mark, and the write completions that bring the count down to the
 * low-water mark call {@link Exchange#resumeResponse()}. Framing bytes (head, chunk sizes) are not counted:
 * they are small and bounded per chunk. A pause means the host now holds the rest of the response for this
 * client (the worker never waits for it), so its start is reported to the connection
 * ({@link Connection#responsePaused()}), whose write timeout closes the connection, and so drops what is
 * held, if the bytes stop moving altogether.
 *
 * <p>T6: a finished response writes an empty end marker behind its last part (in order, also when it is
 * still held behind an earlier response); Netty completes that write once every byte before it has been
 * written to the socket, and its listener calls {@link Exchange#responseSent(long)} then. Nothing is
 * reported for a cancelled response or a failed write.
 *
 * <p>After {@link #cancel()} (the client went away) or once complete, late calls from the host only
 * release their buffers.
 */
final class PendingResponse implements ResponseSink {

    /** What a response tells its connection. Called on the connection's event loop. */
    interface Connection {

        /** {@code response} is complete: its last part is written or held. The connection moves on or closes. */
        void responseComplete(PendingResponse response);

        /** A response began a pause after its writes: the host now holds the rest for this client. */
        void responsePaused();

        /** The socket took bytes of a response body: progress for the write timeout. Cheap: runs per write. */
        void writeProgressed();

        /**
         * The app took the connection through {@code response} ({@link ResponseSink#hijack}); the connection
         * ends it with {@link #hijacked} if it can hand itself over, or closes.
         */
        void hijack(PendingResponse response, int status, List<Map.Entry<String, String>> headers, Channel app,
                    Runnable welcome);
    }

    /** Marks the place of the end marker among held parts. */
    private static final Part END = new Part(Unpooled.EMPTY_BUFFER, 0);

    private final Connection connection;
    private final ChannelHandlerContext ctx;
    private final boolean http10;
    private final boolean headRequest;

    /** Body bytes accepted by {@code body} and not yet written to the socket (or released). */
    private final ResponseBackpressure backpressure = new ResponseBackpressure();

    private Exchange exchange;
    /** Output held until this response is head of line; created for the first part held. */
    private ArrayDeque<Part> parts;
    private boolean headOfLine;
    /** The connection ends after this response for reasons of its own (see {@link #closeConnectionAfter}). */
    private boolean lastOnConnection;
    /** The framing the head announced; null until the head is written. */
    private H1ResponseEncoder.Framing framing;
    /** Body bytes the Content-Length still allows, or -1 when the body is not delimited by a length. */
    private long remaining = -1;
    private boolean closeAfter;
    private boolean complete;
    private boolean cancelled;

    /** @param ctx the connection handler's context: writes start there, on its event loop */
    PendingResponse(Connection connection, ChannelHandlerContext ctx, boolean http10, boolean headRequest) {
        this.connection = connection;
        this.ctx = ctx;
        this.http10 = http10;
        this.headRequest = headRequest;
    }

    // ---- called by the connection, on its event loop ----

    /** Writes {@code 100 Continue} ahead of the response proper (held behind earlier ones if need be). */
    void writeContinue() {
        ByteBuf out = ctx.alloc().buffer(32);
        H1ResponseEncoder.unframedHead(out, false, 100, List.of());
        emit(out, 0);
        flush();
    }

    /** The request was submitted: {@code exchange} hears of resumes, T6 and cancellation. */
    void submitted(Exchange exchange) {
        this.exchange = exchange;
    }

    /**
     * The connection ends after this response (its request did not ask for keep-alive, or the listener
     * drains and this is its last): its head says {@code Connection: close} if it is not out yet.
     */
    void closeConnectionAfter() {
        lastOnConnection = true;
    }

    /** Whether the connection must close after this response (known once it is complete). */
    boolean closesAfter() {
        return closeAfter;
    }

    /**
     * Becomes the oldest unfinished response: writes and flushes what was held.
     *
     * @return true if this response is already complete (the caller moves on to the next one)
     */
    boolean becomeHeadOfLine() {
        // Parts are written before headOfLine is set, so anything emitted meanwhile still queues behind them.
        if (parts != null && !parts.isEmpty()) {
            Part part;
            while ((part = parts.poll()) != null) {
                if (part == END) {
                    writeEnd();
                } else {
                    write(part.msg(), part.bodyBytes());
                }
            }
            ctx.flush();
        }
        headOfLine = true;
        return complete;
    }

    /** The client went away: drop held output and tell the host. */
    void cancel() {
        if (cancelled) {
            return;
        }
        cancelled = true;
        releaseParts();
        if (exchange != null) {
            exchange.cancel();
        }
    }

    /**
     * Answers {@code status} with a short text body and closes the connection after it; if the head is
     * already out, ends the response abnormally instead (the connection closes, the truncation shows).
     */
    void failResponse(int status) {
        if (cancelled || complete) {
            return;
        }
        closeAfter = true;
        if (framing == null) {
            ByteBuf out = ctx.alloc().buffer(H1ResponseEncoder.HEAD_BYTES);
            H1ResponseEncoder.error(out, http10, headRequest, status);
            emit(out, 0);
        }
        finish();
    }

    /**
     * The app took the connection, and this response is head of line: writes the head of a partial hijack
     * ({@code status} > 0) exactly as the app gave it, and nothing more after it.
     */
    void hijacked(int status, List<Map.Entry<String, String>> headers) {
        if (status > 0) {
            ByteBuf out = ctx.alloc().buffer(H1ResponseEncoder.HEAD_BYTES);
            H1ResponseEncoder.unframedHead(out, http10, status, headers);
            write(out, 0);
        }
        complete = true;
        cancelled = true;
        releaseParts();
    }

    // ---- ResponseSink: host threads ----

    @Override
    public void head(int status, List<Map.Entry<String, String>> headers, boolean endOfStream) {
        onEventLoop(() -> writeHead(status, headers, endOfStream), null);
    }

    /**
     * {@inheritDoc} Counts {@code chunk} as unwritten until the socket write of its bytes completes; returns
     * false while more than {@link ResponseBackpressure#HIGH_WATER_BYTES} are unwritten.
     */
    @Override
    public boolean body(ByteBuf chunk, boolean endOfStream) {
        long bytes = chunk.readableBytes();
        return accept(bytes, () -> writePart(chunk, bytes, endOfStream), chunk, endOfStream);
    }

    /** {@inheritDoc} HTTP/1.1 sends files with the transport's sendfile. */
    @Override
    public boolean acceptsFiles() {
        return true;
    }

    /**
     * {@inheritDoc} The region is written as it is (Netty's transports send it with sendfile) and counts as
     * {@code region.count()} unwritten body bytes, as a chunk would.
     */
    @Override
    public boolean file(FileRegion region, boolean endOfStream) {
        long bytes = region.count();
        return accept(bytes, () -> writePart(region, bytes, endOfStream), region, endOfStream);
    }

    /**
     * {@inheritDoc} Whether the head went out is decided by what this sink wrote, so {@code headSent} only
     * mirrors it; {@code reason} stays in the host's logs and is not shown to the client.
     */
    @Override
    public void fail(int status, String reason, boolean headSent) {
        onEventLoop(() -> failResponse(status), null);
    }

    /** {@inheritDoc} Written as {@code 103 Early Hints} on HTTP/1.1; dropped on HTTP/1.0 (no 1xx there). */
    @Override
    public void earlyHints(List<Map.Entry<String, String>> headers) {
        if (!http10) {
            onEventLoop(() -> writeEarlyHints(headers), null);
        }
    }

    /**
     * {@inheritDoc} HTTP/1.1 offers both kinds: the connection stops being HTTP and is spliced to {@code app}
     * (see {@link H1ConnectionHandler}).
     */
    @Override
    public boolean hijack(int status, List<Map.Entry<String, String>> headers, Channel app, Runnable welcome) {
        if (!onEventLoop(() -> connection.hijack(this, status, headers, app, welcome), null)) {
            app.close();
        }
        return true;
    }

    /** Counts {@code bytes} as unwritten, hands {@code write} to the event loop, and answers backpressure. */
    private boolean accept(long bytes, Runnable write, Object owned, boolean endOfStream) {
        long now = backpressure.accepted(bytes);
        if (!onEventLoop(write, owned)) {
            backpressure.written(bytes);
            return true; // the connection is gone: nothing to pause for, and no loop to resume from
        }
        ResponseBackpressure.Pause pause = backpressure.pause(now, endOfStream);
        if (pause != ResponseBackpressure.Pause.STARTED) {
            return pause == ResponseBackpressure.Pause.NONE;
        }
        // The host now holds the rest of the response for this client: one that never reads must not keep it
        // (memory and a spool file) forever. Queued behind the writes above, so the connection sees them.
        onEventLoop(connection::responsePaused, null);
        return false;
    }

    /** Runs {@code task} on the event loop; false if it was rejected ({@code owned} is then released). */
    private boolean onEventLoop(Runnable task, Object owned) {
        try {
            ctx.executor().execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            // The event loop is shut down: the connection is gone with it.
            ReferenceCountUtil.safeRelease(owned);
            return false;
        }
    }

    // ---- the response's own steps, on the event loop ----

    /** The 103 ahead of the response proper; ignored once the head is out. */
    private void writeEarlyHints(List<Map.Entry<String, String>> headers) {
        if (cancelled || complete || framing != null) {
            return;
        }
        ByteBuf out = ctx.alloc().buffer(H1ResponseEncoder.HEAD_BYTES);
        H1ResponseEncoder.unframedHead(out, false, 103, headers);
        emit(out, 0);
        flush();
    }

    private void writeHead(int status, List<Map.Entry<String, String>> headers, boolean endOfStream) {
        if (cancelled || complete || framing != null) {
            return;
        }
        ByteBuf out = ctx.alloc().buffer(H1ResponseEncoder.HEAD_BYTES);
        framing = H1ResponseEncoder.head(out, status, headers, http10, headRequest, endOfStream, lastOnConnection);
        remaining = framing.length();
        closeAfter = framing.closes();
        emit(out, 0);
        if (endOfStream) {
            next(true);
        } else {
            // The body usually comes in the same read of the worker's socket, its task already queued behind
            // this one: flushing after it sends head and body in one write instead of two. A body that is
            // not there yet finds the head flushed by this task, which runs next.
            onEventLoop(this::flush, null);
        }
    }

    /**
     * Writes one body part: a {@link ByteBuf}, or a {@link FileRegion} for sendfile, framed and counted alike.
     *
     * @param bytes what {@code body} or {@code file} counted for {@code part}; uncounted once written or
     *              released
     */
    private void writePart(ReferenceCounted part, long bytes, boolean endOfStream) {
        if (!takesBody()) {
            drop(part, bytes);
            return;
        }
        if (!framing.body() || bytes == 0) {
            drop(part, bytes); // HEAD, 204, 304: dropped bytes are never waited for
        } else if (framing.chunked()) {
            writeChunk(part, bytes);
        } else if (remaining >= 0 && bytes > remaining) {
            // More than the Content-Length sent: what follows would be read as the next response. The rest
            // of a buffer goes out and the connection closes, so the client sees the truncation; a region
            // (its file grew) is never sent in part.
            closeAfter = true;
            if (part instanceof ByteBuf buf) {
                buf.writerIndex(buf.readerIndex() + (int) remaining);
                remaining = 0;
                emit(buf, bytes); // the cut-off bytes count until the rest is written: no separate path
            } else {
                drop(part, bytes);
            }
        } else {
            if (remaining >= 0) {
                remaining -= bytes;
            }
            emit(part, bytes); // delimited by its Content-Length, or by the close
        }
        next(endOfStream);
    }

    /** One chunk: size line, data and CRLF; a buffer's leave as one composite buffer. */
    private void writeChunk(ReferenceCounted part, long bytes) {
        ByteBuf header = ctx.alloc().buffer(H1ResponseEncoder.CHUNK_HEADER_BYTES);
        H1ResponseEncoder.chunkHeader(header, bytes);
        ByteBuf end = ctx.alloc().buffer(2);
        H1ResponseEncoder.chunkEnd(end);
        if (part instanceof ByteBuf buf) {
            emit(ctx.alloc().compositeBuffer(3).addComponents(true, header, buf, end), bytes);
        } else {
            emit(header, 0);
            emit(part, bytes);
            emit(end, 0);
        }
    }

    /** Whether body parts are written: the head is out and the response neither complete nor cancelled. */
    private boolean takesBody() {
        return framing != null && !complete && !cancelled;
    }

    /** A body part that is not sent: released, and uncounted so it is never waited for. */
    private void drop(ReferenceCounted part, long bytes) {
        part.release();
        written(bytes);
    }

    /** After a part: flushes it, or for the last one ends the body and completes the response. */
    private void next(boolean endOfStream) {
        if (!endOfStream) {
            flush();
            return;
        }
        if (framing.chunked()) {
            ByteBuf last = ctx.alloc().buffer(5);
            H1ResponseEncoder.lastChunk(last);
            emit(last, 0);
        } else if (framing.body() && remaining > 0) {
            closeAfter = true; // shorter than announced: the client must see the truncation
        }
        finish();
    }

    private void finish() {
        complete = true;
        if (!cancelled && exchange != null) {
            if (headOfLine) {
                writeEnd();
            } else {
                hold(END);
            }
        }
        flush();
        connection.responseComplete(this);
    }

    /**
     * The end marker: an empty write whose completion means every byte of this response before it reached
     * the socket. Reports T6 to the host then.
     */
    private void writeEnd() {
        Exchange ex = exchange;
        ctx.write(Unpooled.EMPTY_BUFFER, ctx.newPromise().addListener((ChannelFutureListener) future -> {
            if (future.isSuccess() && !cancelled) {
                ex.responseSent(RequestClock.nanoTime(ctx.executor()));
            }
        }));
    }

    /** @param bodyBytes counted body bytes {@code msg} carries: uncounted when it is written or released */
    private void emit(Object msg, long bodyBytes) {
        if (cancelled) {
            ReferenceCountUtil.release(msg);
            written(bodyBytes);
        } else if (headOfLine) {
            write(msg, bodyBytes);
        } else {
            hold(new Part(msg, bodyBytes));
        }
    }

    private void hold(Part part) {
        if (parts == null) {
            parts = new ArrayDeque<>();
        }
        parts.add(part);
    }

    /**
     * Writes {@code msg}; a body write is followed to the socket by a {@link BodyWrite}, on a progressive
     * promise so that each part the socket takes counts as write progress.
     */
    private void write(Object msg, long bodyBytes) {
        if (bodyBytes == 0) {
            ctx.write(msg, ctx.voidPromise());
        } else {
            ctx.write(msg, ctx.newProgressivePromise().addListener(new BodyWrite(bodyBytes)));
        }
    }

    private void flush() {
        if (headOfLine && !cancelled) {
            ctx.flush();
        }
    }

    private void releaseParts() {
        if (parts == null) {
            return;
        }
        Part part;
        while ((part = parts.poll()) != null) {
            ReferenceCountUtil.release(part.msg());
            written(part.bodyBytes());
        }
    }

    /**
     * {@code bytes} of accepted body left the count (written to the socket, or released). Resumes the
     * host once the count is down to the low-water mark after a pause.
     */
    private void written(long bytes) {
        if (backpressure.written(bytes)) {
            Exchange ex = exchange;
            if (ex != null) {
                ex.resumeResponse(); // a no-op for the host once the exchange is cancelled or finished
            }
        }
    }

    @Override
    public String toString() {
        return "PendingResponse[complete=" + complete + ", cancelled=" + cancelled + ", held parts="
                + (parts == null ? 0 : parts.size()) + ", unwritten body bytes=" + backpressure.unwritten() + "]";
    }

    /**
     * Follows one body write to the socket: each part of it the socket takes is progress for the
     * connection's write timeout (a large chunk reaching a slow client counts even before it is whole), and
     * its completion uncounts its body bytes.
     */
    private final class BodyWrite implements ChannelProgressiveFutureListener {
        private final long bodyBytes;

        BodyWrite(long bodyBytes) {
            this.bodyBytes = bodyBytes;
        }

        @Override
        public void operationProgressed(ChannelProgressiveFuture future, long progress, long total) {
            connection.writeProgressed();
        }

        @Override
        public void operationComplete(ChannelProgressiveFuture future) {
            // Success or failure alike: a failed write has released the bytes (the connection is closing).
            written(bodyBytes);
        }
    }

    /** Output held while not head of line, with the counted body bytes it carries (0 for framing). */
    private record Part(Object msg, long bodyBytes) {
    }
}
