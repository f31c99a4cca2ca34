/*
 * The bytes of one HTTP/1.1 response on their way to the socket (the respond step): held while an earlier
 * pipelined response is still being written, written in order once PendingResponse is head of line, and
 * followed to the socket for the write timeout's progress, the body's backpressure count and T6.
 */
package dev.pumaplus.protocol.h1;

import dev.pumaplus.spi.Exchange;
import dev.pumaplus.spi.ResponseBackpressure;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelProgressiveFuture;
import io.netty.channel.ChannelProgressiveFutureListener;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.ReferenceCounted;
import java.util.ArrayDeque;

/**
 * Owned by one {@link PendingResponse}, which frames the messages and hands them to {@link #emit}. Every
 * message carries the body bytes it counts in the response's {@link ResponseBackpressure} (0 for framing);
 * they are uncounted when the socket write completes or the message is released, and the host is resumed
 * ({@link Exchange#resumeResponse()}) when that brings the count down to the low-water mark. Each part of
 * a body write the socket takes is reported as write progress ({@link PendingResponse.Connection#writeProgressed()}).
 * Event loop only.
 */
final class ResponseOutput {

    /** Marks the place of the end marker among held parts. */
    private static final Part END = new Part(Unpooled.EMPTY_BUFFER, 0);

    private final ChannelHandlerContext ctx;
    private final PendingResponse.Connection connection;
    private final ResponseBackpressure backpressure;
    private Exchange exchange;
    /** Output held until the response is head of line; created for the first part held. */
    private ArrayDeque<Part> parts;
    private boolean headOfLine;
    /** Nothing more is written: what is held and what comes is released. */
    private boolean cancelled;

    ResponseOutput(ChannelHandlerContext ctx, PendingResponse.Connection connection,
                   ResponseBackpressure backpressure) {
        this.ctx = ctx;
        this.connection = connection;
        this.backpressure = backpressure;
    }

    /** The request was submitted: {@code exchange} hears of resumes and T6. */
    void submitted(Exchange exchange) {
        this.exchange = exchange;
    }

    boolean isHeadOfLine() {
        return headOfLine;
    }

    boolean cancelled() {
        return cancelled;
    }

    /** Writes and flushes what was held; from now on output is written at once. */
    void becomeHeadOfLine() {
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
    }

    /** Nothing more is written: releases what is held, and from now on what comes. */
    void cancel() {
        cancelled = true;
        releaseParts();
    }

    /** @param bodyBytes counted body bytes {@code msg} carries: uncounted when it is written or released */
    void emit(Object msg, long bodyBytes) {
        if (cancelled) {
            ReferenceCountUtil.release(msg);
            written(bodyBytes);
        } else if (headOfLine) {
            write(msg, bodyBytes);
        } else {
            hold(new Part(msg, bodyBytes));
        }
    }

    /**
     * The response is complete: the end marker goes behind its last part (held, if the response is not head
     * of line yet), unless it was cancelled.
     */
    void end() {
        if (cancelled) {
            return;
        }
        if (headOfLine) {
            writeEnd();
        } else {
            hold(END);
        }
    }

    /** A body part that is not sent: released, and uncounted so it is never waited for. */
    void drop(ReferenceCounted part, long bytes) {
        part.release();
        written(bytes);
    }

    void flush() {
        if (headOfLine && !cancelled) {
            ctx.flush();
        }
    }

    /**
     * Writes {@code msg} now; a body write is followed to the socket by a {@link BodyWrite}, on a progressive
     * promise so that each part the socket takes counts as write progress.
     */
    void write(Object msg, long bodyBytes) {
        if (bodyBytes == 0) {
            ctx.write(msg, ctx.voidPromise());
        } else {
            ctx.write(msg, ctx.newProgressivePromise().addListener(new BodyWrite(bodyBytes)));
        }
    }

    int heldParts() {
        return parts == null ? 0 : parts.size();
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

    private void hold(Part part) {
        if (parts == null) {
            parts = new ArrayDeque<>();
        }
        parts.add(part);
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
