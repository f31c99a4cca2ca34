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
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.FileRegion;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.ReferenceCounted;
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
 * connection ("head of line"); before that it is held ({@link ResponseOutput}) and written when its turn comes.
 *
 * <p>Backpressure ({@link ResponseBackpressure}): the response body bytes {@code body} accepted that have not
 * yet been written to the socket (still queued for the event loop, held behind an earlier
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

    private final Connection connection;
    private final ChannelHandlerContext ctx;
    private final boolean http10;
    private final boolean headRequest;

    /** Body bytes accepted by {@code body} and not yet written to the socket (or released). */
    private final ResponseBackpressure backpressure;
    /** This response's bytes on their way to the socket: held, written, counted. */
    private final ResponseOutput output;

    private Exchange exchange;
    /** The connection ends after this response for reasons of its own (see {@link #closeConnectionAfter}). */
    private boolean lastOnConnection;
    /** The framing the head announced; null until the head is written. */
    private H1ResponseEncoder.Framing framing;
    /** Body bytes the Content-Length still allows, or -1 when the body is not delimited by a length. */
    private long remaining = -1;
    private boolean closeAfter;
    private boolean complete;

    /**
     * @param ctx          the connection handler's context: writes start there, on its event loop
     * @param backpressure this response's count of unwritten body bytes ({@link dev.pumaplus.spi.RequestQueue#backpressure()})
     */
    PendingResponse(Connection connection, ChannelHandlerContext ctx, boolean http10, boolean headRequest,
                    ResponseBackpressure backpressure) {
        this.connection = connection;
        this.backpressure = backpressure;
        this.ctx = ctx;
        this.http10 = http10;
        this.headRequest = headRequest;
        this.output = new ResponseOutput(ctx, connection, backpressure);
    }

    // ---- called by the connection, on its event loop ----

    /** Writes {@code 100 Continue} ahead of the response proper (held behind earlier ones if need be). */
    void writeContinue() {
        ByteBuf out = ctx.alloc().buffer(32);
        H1ResponseEncoder.unframedHead(out, false, 100, List.of());
        output.emit(out, 0);
        output.flush();
    }

    /** The request was submitted: {@code exchange} hears of resumes, T6 and cancellation. */
    void submitted(Exchange exchange) {
        this.exchange = exchange;
        output.submitted(exchange);
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
        output.becomeHeadOfLine();
        return complete;
    }

    /** The client went away: drop held output and tell the host. */
    void cancel() {
        if (output.cancelled()) {
            return;
        }
        output.cancel();
        if (exchange != null) {
            exchange.cancel();
        }
    }

    /**
     * Answers {@code status} with a short text body and closes the connection after it; if the head is
     * already out, ends the response abnormally instead (the connection closes, the truncation shows).
     */
    void failResponse(int status) {
        if (output.cancelled() || complete) {
            return;
        }
        closeAfter = true;
        if (framing == null) {
            ByteBuf out = ctx.alloc().buffer(H1ResponseEncoder.HEAD_BYTES);
            H1ResponseEncoder.error(out, http10, headRequest, status);
            output.emit(out, 0);
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
            output.write(out, 0);
        }
        complete = true;
        output.cancel();
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
        if (output.cancelled() || complete || framing != null) {
            return;
        }
        ByteBuf out = ctx.alloc().buffer(H1ResponseEncoder.HEAD_BYTES);
        H1ResponseEncoder.unframedHead(out, false, 103, headers);
        output.emit(out, 0);
        output.flush();
    }

    private void writeHead(int status, List<Map.Entry<String, String>> headers, boolean endOfStream) {
        if (output.cancelled() || complete || framing != null) {
            return;
        }
        ByteBuf out = ctx.alloc().buffer(H1ResponseEncoder.HEAD_BYTES);
        framing = H1ResponseEncoder.head(out, status, headers, http10, headRequest, endOfStream, lastOnConnection);
        remaining = framing.length();
        closeAfter = framing.closes();
        output.emit(out, 0);
        if (endOfStream) {
            next(true);
        } else {
            // The body usually comes in the same read of the worker's socket, its task already queued behind
            // this one: flushing after it sends head and body in one write instead of two. A body that is
            // not there yet finds the head flushed by this task, which runs next.
            onEventLoop(output::flush, null);
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
            output.drop(part, bytes);
            return;
        }
        if (!framing.body() || bytes == 0) {
            output.drop(part, bytes); // HEAD, 204, 304: dropped bytes are never waited for
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
                output.emit(buf, bytes); // the cut-off bytes count until the rest is written: no separate path
            } else {
                output.drop(part, bytes);
            }
        } else {
            if (remaining >= 0) {
                remaining -= bytes;
            }
            output.emit(part, bytes); // delimited by its Content-Length, or by the close
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
            output.emit(ctx.alloc().compositeBuffer(3).addComponents(true, header, buf, end), bytes);
        } else {
            output.emit(header, 0);
            output.emit(part, bytes);
            output.emit(end, 0);
        }
    }

    /** Whether body parts are written: the head is out and the response neither complete nor cancelled. */
    private boolean takesBody() {
        return framing != null && !complete && !output.cancelled();
    }

    /** After a part: flushes it, or for the last one ends the body and completes the response. */
    private void next(boolean endOfStream) {
        if (!endOfStream) {
            output.flush();
            return;
        }
        if (framing.chunked()) {
            ByteBuf last = ctx.alloc().buffer(5);
            H1ResponseEncoder.lastChunk(last);
            output.emit(last, 0);
        } else if (framing.body() && remaining > 0) {
            closeAfter = true; // shorter than announced: the client must see the truncation
        }
        finish();
    }

    private void finish() {
        complete = true;
        if (exchange != null) {
            output.end();
        }
        output.flush();
        connection.responseComplete(this);
    }

    @Override
    public String toString() {
        return "PendingResponse[complete=" + complete + ", cancelled=" + output.cancelled() + ", held parts="
                + output.heldParts() + ", unwritten body bytes=" + backpressure.unwritten() + "]";
    }
}
