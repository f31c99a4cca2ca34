/*
 * The clocks of one HTTP/1.1 connection (parse → queue → ... → respond): the idle clock before a request's
 * first byte, the deadline of its header section, the write timeout while its responses wait for the client,
 * and the linger before a closing connection's close; H1ConnectionHandler drives them and is told when one
 * runs out.
 */
package dev.pumaplus.protocol.h1;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Idle clock: {@link H1Config#firstDataTimeoutSecs()} on a new connection and
 * {@link H1Config#persistentTimeoutSecs()} between requests; a connection that brings no byte in time is
 * closed without a response, as puma's reactor does. It ends with a request's first byte.
 *
 * <p>Header deadline: a request's header section must be complete {@link H1Config#headerTimeoutSecs()}
 * seconds after its first byte arrived, however the bytes trickle in; past it the connection answers 408
 * (after the responses before it) and closes ({@link Connection#headerDeadlinePassed()}). The idle clock
 * (first data, keep-alive) ends with a request's first byte; the header deadline takes over from there.
 *
 * <p>Write timeout (puma's WRITE_TIMEOUT): while response bytes wait in the channel because the client does
 * not take them, the connection is closed once none of them has reached the socket for
 * {@link H1Config#writeTimeoutSecs()} seconds; closing cancels its exchanges, so what the host holds for a
 * client that never reads is dropped (the worker's slot was free once the worker wrote its response). Every
 * body byte the socket takes, even part of a chunk, and the channel turning writable again count as progress
 * and restart the period (framing bytes, a few per chunk or response, are not followed). The timer is armed
 * only when the channel becomes unwritable, a response pauses, or a closing connection has bytes left, and
 * only if bytes wait in the channel: a client that keeps up never schedules one.
 *
 * <p>All clocks run on the event loop's ticker ({@link RequestClock}). Threading: event loop only.
 */
final class H1ConnectionTimeouts {

    /** What the clocks ask of the connection they time; called on its event loop. */
    interface Connection {
        /** A response is pending or a request's body is being read: the connection is not idle. */
        boolean busy();

        /**
         * The header deadline passed with the header section still incomplete: answer 408 after the
         * responses before it and close, unless the connection takes no more requests anyway.
         */
        void headerDeadlinePassed();
    }

    private final ChannelHandlerContext ctx;
    private final H1Config config;
    private final H1RequestDecoder decoder;
    private final Connection connection;
    /** The channel closed: nothing is armed any more. */
    private boolean closed;
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
    /** The write timeout's next check; non-null while it is armed (see {@link #armWriteTimer()}). */
    private ScheduledFuture<?> writeTimer;
    /** Event loop ticker time of the last write progress seen while {@link #writeTimer} is armed. */
    private long lastWriteProgressNanos;
    /** The header deadline's check, or null; due for the header section that began at {@link #headerStartNanos}. */
    private ScheduledFuture<?> headerCheck;
    private long headerStartNanos;
    /**
     * The close at the end of the linger, or null; cancelled when the client closes first, so that a closed
     * connection is not kept reachable for the rest of the linger (with a new connection per request that was
     * thousands of connections' objects, promoted to the old generation).
     */
    private ScheduledFuture<?> lingerClose;

    H1ConnectionTimeouts(ChannelHandlerContext ctx, H1Config config, H1RequestDecoder decoder, Connection connection) {
        this.ctx = ctx;
        this.config = config;
        this.decoder = decoder;
        this.connection = connection;
    }

    /** Cancels every clock: the connection leaves HTTP/1.1 (h2c, hijack, WebSocket) or closes. */
    void cancelAll() {
        cancelIdleCheck();
        cancelHeaderCheck();
        disarmWriteTimer();
    }

    /** The channel closed: cancels every clock, and none is armed again. */
    void channelClosed() {
        closed = true;
        cancelAll();
        lingerClose = cancelled(lingerClose);
    }

    /** Closes the connection {@code seconds} from now, unless the client closes it first. */
    void closeAfterLinger(long seconds) {
        lingerClose = ctx.executor().schedule(() -> ctx.close(), seconds, TimeUnit.SECONDS);
    }


    /**
     * Starts the header deadline if a header section is in progress and none runs yet; the section's clock
     * starts no earlier than {@code resumedAtNanos}, when the decoder was last resumed after the read-ahead
     * bound (a held request waits for the connection, not the client). Also ends the idle clock. The caller
     * leaves out a connection that is held, refusing or closed.
     */
    void armHeaderDeadline(long resumedAtNanos) {
        long seconds = config.headerTimeoutSecs();
        long start = decoder.headerSectionStartNanos();
        if (seconds <= 0 || start < 0 || headerCheck != null || closed) {
            return;
        }
        disarmIdleTimer(); // a request has begun: the connection is no longer idle
        headerStartNanos = Math.max(start, resumedAtNanos);
        long due = headerStartNanos + TimeUnit.SECONDS.toNanos(seconds) - RequestClock.nanoTime(ctx.executor());
        headerCheck = ctx.executor().schedule(this::checkHeaderDeadline, due, TimeUnit.NANOSECONDS);
    }

    /** The header deadline passed: if the header section is still incomplete, the connection answers it. */
    private void checkHeaderDeadline() {
        headerCheck = null;
        if (closed || decoder.headerSectionStartNanos() < 0) {
            return;
        }
        connection.headerDeadlinePassed();
    }

    /** Ends the header deadline: the header section is complete, or the connection is going. */
    void cancelHeaderCheck() {
        headerCheck = cancelled(headerCheck);
    }

    /** Starts the idle clock with {@code seconds} (none if not positive): closed if no byte comes in time. */
    void armIdleTimer(long seconds) {
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
        if (idleTimeoutNanos == 0 || connection.busy()) {
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
    void disarmIdleTimer() {
        idleTimeoutNanos = 0;
    }

    /** Stops the idle clock and cancels its check: the connection is closing or leaving this handler. */
    void cancelIdleCheck() {
        idleTimeoutNanos = 0;
        idleCheck = cancelled(idleCheck);
    }

    /**
     * Response bytes reached the socket, or the channel turned writable again: the write timeout's period
     * restarts. Only a field write unless the timeout is armed.
     */
    void writeProgressed() {
        if (writeTimer != null) {
            lastWriteProgressNanos = RequestClock.nanoTime(ctx.executor());
        }
    }

    /** Starts the write timeout if it is configured, not armed yet and bytes wait in the channel. */
    void armWriteTimer() {
        long seconds = config.writeTimeoutSecs();
        if (writeTimer != null || seconds <= 0 || closed || pendingWriteBytes() == 0) {
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
        if (closed || pendingWriteBytes() == 0) {
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

    void disarmWriteTimer() {
        writeTimer = cancelled(writeTimer);
    }

    /**
     * Bytes written to the channel and not yet taken by the socket (Netty's outbound buffer, with a small
     * per-write overhead); 0 once the channel is closed. What IdleStateHandler's output observation reads too.
     */
    private long pendingWriteBytes() {
        ChannelOutboundBuffer out = ctx.channel().unsafe().outboundBuffer();
        return out == null ? 0 : out.totalPendingWriteBytes();
    }

    /** Cancels {@code timer} if one is set; returns null, the field's value for "not armed". */
    private static ScheduledFuture<?> cancelled(ScheduledFuture<?> timer) {
        if (timer != null) {
            timer.cancel(false);
        }
        return null;
    }
}
