/*
 * One request's response on an HTTP/1.1 connection (the respond step of ... → app → respond): receives the
 * head and body from the host, frames them (Content-Length, chunked or close-delimited) and writes them in
 * request order, buffering while an earlier pipelined response is still being written, and asks the host to
 * pause the worker while too much of the body waits to reach the client; reports the body bytes that reach
 * the socket to the connection's write timeout, and tells the host when the response's last byte left (T6).
 */
package dev.pumaplus.protocol.h1;

import dev.pumaplus.spi.Exchange;
import dev.pumaplus.spi.HeaderFields;
import dev.pumaplus.spi.ResponseBackpressure;
import dev.pumaplus.spi.ResponseSink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelProgressiveFuture;
import io.netty.channel.ChannelProgressiveFutureListener;
import io.netty.channel.FileRegion;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;

/**
 * The {@link ResponseSink} of one exchange, and its slot in the connection's response order.
 *
 * <p>Threading: the {@code ResponseSink} methods are called by host threads; each hops to the connection's
 * event loop with {@code execute}, which keeps their order. Every other method and all state belong to
 * that event loop. Output is written only while this response is the oldest unfinished one of its
 * connection ("head of line"); before that it is kept in {@link #parts} and written when its turn comes.
 *
 * <p>Backpressure ({@link ResponseBackpressure}): the response body bytes {@code body} accepted that have not
 * yet been written to the socket (still queued for the event loop, buffered in {@link #parts} behind an
 * earlier response, or in the channel's outbound buffer because the client reads slowly) are counted;
 * {@code body} returns false above the high-water mark, and the write completions that bring the count
 * down to the low-water mark call {@link Exchange#resumeResponse()}. Framing bytes (head, chunk sizes) are
 * not counted: they are small and bounded per chunk. A pause means a worker now waits on this client, so
 * its start is reported to the connection ({@link H1ConnectionHandler#responsePaused()}), whose write
 * timeout closes the connection if the bytes stop moving altogether.
 *
 * <p>T6: a finished response writes an empty end marker behind its last part (in order, also when it is
 * still buffered behind an earlier response); Netty completes that write once every byte before it has
 * been written to the socket, and its listener calls {@link Exchange#responseSent(long)} with
 * {@link System#nanoTime()} then. Nothing is reported for a cancelled response or a failed write.
 *
 * <p>After {@link #cancel()} (the client went away) or once complete, late calls from the host only
 * release their buffers.
 */
final class PendingResponse implements ResponseSink {

    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] LAST_CHUNK = "0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private final H1ConnectionHandler connection;
    private final Channel channel;
    private final boolean http10;
    private final boolean headRequest;
    private final boolean keepAlive;

    /** Body bytes accepted by {@code body} and not yet written to the socket (or released). */
    private final ResponseBackpressure backpressure = new ResponseBackpressure();

    private Exchange exchange;
    private final ArrayDeque<Part> parts = new ArrayDeque<>();
    private boolean headOfLine;
    private boolean headWritten;
    private boolean bodyAllowed;
    private boolean chunked;
    private long remainingLength = -1;
    private boolean closeAfter;
    private boolean complete;
    private boolean cancelled;

    PendingResponse(H1ConnectionHandler connection, Channel channel, boolean http10, boolean headRequest,
            boolean keepAlive) {
        this.connection = connection;
        this.channel = channel;
        this.http10 = http10;
        this.headRequest = headRequest;
        this.keepAlive = keepAlive;
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
        return accept(bytes, () -> writeBody(chunk, endOfStream, bytes), chunk, endOfStream);
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
        return accept(bytes, () -> writeFile(region, endOfStream, bytes), region, endOfStream);
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
        // The worker now blocks until this client reads: a client that never does must not hold it forever.
        // Queued behind the writes above, so the connection sees them in the channel.
        onEventLoop(connection::responsePaused, null);
        return false;
    }

    /**
     * {@inheritDoc} Whether the head went out is decided by what this sink wrote, so {@code headSent} only
     * mirrors it; {@code reason} stays in the host's logs and is not shown to the client.
     */
    @Override
    public void fail(int status, String reason, boolean headSent) {
        onEventLoop(() -> failResponse(status), null);
    }

    @Override
    public void resumeRequestBody() {
        onEventLoop(connection::resumeReading, null);
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
     * by {@link H1ConnectionHandler#hijack}.
     */
    @Override
    public boolean hijack(int status, List<Map.Entry<String, String>> headers, io.netty.channel.Channel app,
                          Runnable welcome) {
        if (!onEventLoop(() -> connection.hijack(this, status, headers, app, welcome), null)) {
            app.close();
        }
        return true;
    }

    /** Runs {@code task} on the event loop; false if it was rejected ({@code owned} is then released). */
    private boolean onEventLoop(Runnable task, Object owned) {
        try {
            channel.eventLoop().execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            // The event loop is shut down: the connection is gone with it.
            ReferenceCountUtil.safeRelease(owned);
            return false;
        }
    }

    /**
     * {@code bytes} of accepted body left the count (written to the socket, or released). Resumes the
     * host once the count is down to the low-water mark after a pause. Event loop.
     */
    private void written(long bytes) {
        if (backpressure.written(bytes)) {
            Exchange ex = exchange;
            if (ex != null) {
                ex.resumeResponse(); // a no-op for the host once the exchange is cancelled or finished
            }
        }
    }

    // ---- event loop ----

    void exchange(Exchange exchange) {
        this.exchange = exchange;
    }

    Exchange exchange() {
        return exchange;
    }

    boolean isComplete() {
        return complete;
    }

    boolean closesAfter() {
        return closeAfter;
    }

    boolean headWritten() {
        return headWritten;
    }

    /** Writes {@code 100 Continue} ahead of the response proper (possibly buffered behind earlier ones). */
    void writeContinue() {
        emit(ascii(http10 ? "HTTP/1.0 100 Continue\r\n\r\n" : "HTTP/1.1 100 Continue\r\n\r\n"));
        flush();
    }

    /**
     * Becomes the oldest unfinished response: writes and flushes what was buffered.
     *
     * @return true if this response is already complete (the caller moves on to the next one)
     */
    boolean becomeHeadOfLine() {
        // Parts are drained before headOfLine is set, so anything emitted meanwhile still queues behind them.
        if (!parts.isEmpty()) {
            Part part;
            while ((part = parts.poll()) != null) {
                if (part.end()) {
                    writeEnd();
                } else {
                    write(part.buf(), part.bodyBytes());
                }
            }
            connection.flush();
        }
        headOfLine = true;
        return complete;
    }

    /** The client went away: drop buffered output and tell the host. */
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
        if (headWritten) {
            finish();
            return;
        }
        HttpResponseStatus s = HttpResponseStatus.valueOf(status);
        byte[] text = (status + " " + s.reasonPhrase() + "\n").getBytes(StandardCharsets.US_ASCII);
        StringBuilder head = new StringBuilder(128)
                .append(http10 ? "HTTP/1.0 " : "HTTP/1.1 ").append(status).append(' ').append(s.reasonPhrase())
                .append("\r\nContent-Type: text/plain\r\nConnection: close\r\n");
        if (!headRequest) {
            head.append("Content-Length: ").append(text.length).append("\r\n");
        }
        head.append("\r\n");
        headWritten = true;
        emit(ascii(head.toString()));
        if (!headRequest) {
            emit(channel.alloc().buffer(text.length).writeBytes(text));
        }
        finish();
    }

    /** The 103 ahead of the response proper; ignored once the head is out. Event loop. */
    private void writeEarlyHints(List<Map.Entry<String, String>> headers) {
        if (cancelled || complete || headWritten) {
            return;
        }
        ByteBuf out = channel.alloc().buffer(128);
        out.writeCharSequence("HTTP/1.1 103 Early Hints\r\n", StandardCharsets.US_ASCII);
        writeFields(out, headers);
        out.writeBytes(CRLF);
        emit(out);
        flush();
    }

    /**
     * The head of a partial hijack, exactly as the app gave it: no framing headers are added (the body is
     * whatever the app writes, ended by its close), and the response is over for HTTP's purposes. Returns
     * the buffer for the connection to write. Event loop.
     */
    ByteBuf hijackHead(int status, List<Map.Entry<String, String>> headers) {
        HttpResponseStatus s = HttpResponseStatus.valueOf(status);
        ByteBuf out = channel.alloc().buffer(256);
        out.writeCharSequence(http10 ? "HTTP/1.0 " : "HTTP/1.1 ", StandardCharsets.US_ASCII);
        out.writeCharSequence(Integer.toString(status), StandardCharsets.US_ASCII);
        out.writeByte(' ');
        out.writeCharSequence(s.reasonPhrase(), StandardCharsets.ISO_8859_1);
        out.writeBytes(CRLF);
        writeFields(out, headers);
        out.writeBytes(CRLF);
        return out;
    }

    /** The hijack took over: nothing more is written by this response. Event loop. */
    void hijacked() {
        headWritten = true;
        complete = true;
        cancelled = true;
        releaseParts();
    }

    private static void writeFields(ByteBuf out, List<Map.Entry<String, String>> headers) {
        for (Map.Entry<String, String> header : headers) {
            if (!HeaderFields.isToken(header.getKey()) || !HeaderFields.isFieldValue(header.getValue())) {
                continue;
            }
            out.writeCharSequence(header.getKey(), StandardCharsets.ISO_8859_1);
            out.writeByte(':');
            out.writeByte(' ');
            out.writeCharSequence(header.getValue(), StandardCharsets.ISO_8859_1);
            out.writeBytes(CRLF);
        }
    }

    boolean headOfLine() {
        return headOfLine;
    }

    private void writeHead(int status, List<Map.Entry<String, String>> headers, boolean endOfStream) {
        if (cancelled || complete || headWritten) {
            return;
        }
        bodyAllowed = !headRequest && status >= 200 && status != 204 && status != 304;
        boolean lengthForbidden = status < 200 || status == 204;
        long contentLength = -1;
        boolean appClose = false;
        ByteBuf out = channel.alloc().buffer(256);
        HttpResponseStatus s = HttpResponseStatus.valueOf(status);
        out.writeCharSequence(http10 ? "HTTP/1.0 " : "HTTP/1.1 ", StandardCharsets.US_ASCII);
        out.writeCharSequence(Integer.toString(status), StandardCharsets.US_ASCII);
        out.writeByte(' ');
        out.writeCharSequence(s.reasonPhrase(), StandardCharsets.ISO_8859_1);
        out.writeBytes(CRLF);
        for (Map.Entry<String, String> header : headers) {
            String name = header.getKey();
            String value = header.getValue();
            if (!HeaderFields.isToken(name) || !HeaderFields.isFieldValue(value)) {
                continue; // never let an app split the response
            }
            if (name.equalsIgnoreCase("connection")) {
                appClose |= containsToken(value, "close");
                continue;
            }
            if (name.equalsIgnoreCase("keep-alive") || name.equalsIgnoreCase("transfer-encoding")
                    || name.equalsIgnoreCase("proxy-connection")) {
                continue;
            }
            if (name.equalsIgnoreCase("content-length")) {
                if (lengthForbidden || contentLength >= 0) {
                    continue;
                }
                try {
                    contentLength = Long.parseLong(value.trim());
                } catch (NumberFormatException e) {
                    continue;
                }
                if (contentLength < 0) {
                    contentLength = -1;
                    continue;
                }
            }
            out.writeCharSequence(name, StandardCharsets.ISO_8859_1);
            out.writeByte(':');
            out.writeByte(' ');
            out.writeCharSequence(value, StandardCharsets.ISO_8859_1);
            out.writeBytes(CRLF);
        }
        if (bodyAllowed) {
            if (contentLength >= 0) {
                remainingLength = contentLength;
            } else if (endOfStream) {
                out.writeCharSequence("Content-Length: 0\r\n", StandardCharsets.US_ASCII);
                remainingLength = 0;
            } else if (!http10) {
                chunked = true;
                out.writeCharSequence("Transfer-Encoding: chunked\r\n", StandardCharsets.US_ASCII);
            } else {
                closeAfter = true; // HTTP/1.0 without a length: the close delimits the body
            }
        }
        closeAfter |= !keepAlive || appClose || connection.closesAfter(this);
        if (closeAfter) {
            out.writeCharSequence("Connection: close\r\n", StandardCharsets.US_ASCII);
        } else if (http10) {
            out.writeCharSequence("Connection: keep-alive\r\n", StandardCharsets.US_ASCII);
        }
        out.writeBytes(CRLF);
        headWritten = true;
        emit(out);
        if (endOfStream) {
            finish();
        } else {
            flush();
        }
    }

    /** @param bytes what {@code body} counted for {@code chunk}; uncounted once written or released */
    private void writeBody(ByteBuf chunk, boolean endOfStream, long bytes) {
        if (cancelled || complete || !headWritten) {
            chunk.release();
            written(bytes);
            return;
        }
        if (!bodyAllowed || !chunk.isReadable()) {
            chunk.release(); // HEAD, 204, 304: dropped bytes are never waited for
            written(bytes);
        } else if (chunked) {
            // One buffer per chunk: size line, data, CRLF leave together.
            emit(channel.alloc().compositeBuffer(3).addComponents(true,
                    ascii(Integer.toHexString(chunk.readableBytes()) + "\r\n"), chunk,
                    channel.alloc().buffer(2).writeBytes(CRLF)), bytes);
        } else if (remainingLength >= 0) {
            if (chunk.readableBytes() > remainingLength) {
                // More than the app's Content-Length: what follows would be read as the next response.
                chunk.writerIndex(chunk.readerIndex() + (int) remainingLength);
                closeAfter = true;
            }
            remainingLength -= chunk.readableBytes();
            emit(chunk, bytes); // the cut-off bytes count until the rest is written: no separate path
        } else {
            emit(chunk, bytes);
        }
        if (endOfStream) {
            if (chunked) {
                emit(ascii(LAST_CHUNK));
            } else if (bodyAllowed && remainingLength > 0) {
                closeAfter = true; // shorter than announced: the client must see the truncation
            }
            finish();
        } else {
            flush();
        }
    }

    /** A file region as body bytes: framed like a chunk, counted like one. Event loop. */
    private void writeFile(FileRegion region, boolean endOfStream, long bytes) {
        if (cancelled || complete || !headWritten || !bodyAllowed || bytes == 0) {
            region.release();
            written(bytes);
        } else if (chunked) {
            emit(ascii(Long.toHexString(bytes) + "\r\n"));
            emit(region, bytes);
            emit(ascii(CRLF));
        } else if (remainingLength >= 0 && bytes > remainingLength) {
            // Longer than the Content-Length sent (the file grew): never send a partial region that would
            // be read as the next response; close so the client sees the truncation.
            region.release();
            written(bytes);
            closeAfter = true;
        } else {
            if (remainingLength >= 0) {
                remainingLength -= bytes;
            }
            emit(region, bytes);
        }
        if (endOfStream) {
            if (chunked) {
                emit(ascii(LAST_CHUNK));
            } else if (bodyAllowed && remainingLength > 0) {
                closeAfter = true;
            }
            finish();
        } else {
            flush();
        }
    }

    private void finish() {
        complete = true;
        if (!cancelled && exchange != null) {
            if (headOfLine) {
                writeEnd();
            } else {
                parts.add(new Part(Unpooled.EMPTY_BUFFER, 0, true));
            }
        }
        flush();
        connection.responseComplete(this);
    }

    /**
     * The end marker: an empty write whose completion means every byte of this response before it reached
     * the socket. Reports T6 to the host then. Event loop.
     */
    private void writeEnd() {
        Exchange ex = exchange;
        connection.writeEnd((ChannelFutureListener) future -> {
            if (future.isSuccess() && !cancelled) {
                ex.responseSent(System.nanoTime());
            }
        });
    }

    private void emit(ByteBuf buf) {
        emit(buf, 0);
    }

    /** @param bodyBytes counted body bytes {@code buf} carries: uncounted when it is written or released */
    private void emit(Object buf, long bodyBytes) {
        if (cancelled) {
            ReferenceCountUtil.release(buf);
            written(bodyBytes);
        } else if (headOfLine) {
            write(buf, bodyBytes);
        } else {
            parts.add(new Part(buf, bodyBytes, false));
        }
    }

    private void write(Object buf, long bodyBytes) {
        if (bodyBytes == 0) {
            connection.write(buf);
        } else {
            connection.write(buf, new BodyWrite(bodyBytes));
        }
    }

    private void flush() {
        if (headOfLine && !cancelled) {
            connection.flush();
        }
    }

    private void releaseParts() {
        Part part;
        while ((part = parts.poll()) != null) {
            ReferenceCountUtil.release(part.buf());
            written(part.bodyBytes());
        }
    }

    private ByteBuf ascii(String s) {
        return ascii(s.getBytes(StandardCharsets.US_ASCII));
    }

    private ByteBuf ascii(byte[] bytes) {
        return channel.alloc().buffer(bytes.length).writeBytes(bytes);
    }

    private static boolean containsToken(String value, String token) {
        for (String part : value.split(",")) {
            if (part.trim().equalsIgnoreCase(token)) {
                return true;
            }
        }
        return false;
    }



    @Override
    public String toString() {
        return "PendingResponse[complete=" + complete + ", cancelled=" + cancelled + ", buffered parts="
                + parts.size() + ", unwritten body bytes=" + backpressure.unwritten() + "]";
    }

    /**
     * Follows one body write to the socket: each part of it the socket takes is progress for the
     * connection's write timeout (a large chunk reaching a slow client counts even before it is whole), and
     * its completion uncounts its body bytes. Event loop.
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

    /**
     * Output held while not head of line, with the counted body bytes it carries (0 for framing); {@code end}
     * marks the empty end marker whose write reports T6.
     */
    private record Part(Object buf, long bodyBytes, boolean end) {
    }
}
