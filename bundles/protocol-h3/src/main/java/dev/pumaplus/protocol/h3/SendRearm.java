/*
 * The response writes of one HTTP/3 request stream, guarded against a lost wake-up in Kwik's stream sender
 * that otherwise stops a large response for good.
 */
package dev.pumaplus.protocol.h3;

import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.TimeUnit;
import tech.kwik.core.QuicStream;
import tech.kwik.core.stream.FlowControlUpdateListener;

/**
 * Kwik (0.10.8, and its master branch as read on 2026-12-07) counts the send requests a stream has queued
 * with an AtomicInteger that the writing thread increments only after it has queued the request. When the
 * sender thread runs that request in between, its decrement takes the count to -1, so on finding more data
 * it believes a request is still queued and queues none; the writer's late increment then leaves 0 with
 * nothing queued. The stream's remaining bytes go out only when something queues a request again: the
 * writer's next write, a MAX_STREAM_DATA from the peer, a retransmission. A writer already blocked on the
 * stream's full send buffer (Kwik's default, 50 KiB) waits for a sender that will never drain it: 5 MiB
 * responses stopped after 2,473 bytes until the idle timeout in about one download in three, with three
 * clients on one slot on this machine, and the idle timeout then failed the write.
 *
 * <p>So a write that may block (once the response has written more than half that buffer; a smaller
 * response cannot fill it) is watched: every {@link #PERIOD_MILLIS} while it is blocked, the stream is told
 * it is not blocked, Kwik's own path for a flow-control update, which queues a request only when the count
 * says none is queued and whose request sends nothing when nothing is due. Smaller responses pay nothing.
 *
 * <p>Threading: {@link #write} on the request's thread; the watch fires on one of the host's event loops.
 */
final class SendRearm {

    /** Half of Kwik's default stream send buffer, which the connector does not change, in bytes. */
    static final long UNWATCHED_BYTES = 25 * 1024;
    /** How long a blocked write may wait on a lost wake-up, ms. */
    static final long PERIOD_MILLIS = 50;

    private final FlowControlUpdateListener sender; // null when the stream is not Kwik's own implementation
    private final int streamId;
    private final EventExecutorGroup timers;
    private long written;

    SendRearm(QuicStream quic, EventExecutorGroup timers) {
        this.sender = quic.getOutputStream() instanceof FlowControlUpdateListener l ? l : null;
        this.streamId = quic.getStreamId();
        this.timers = timers;
    }

    /** {@code out.write(bytes)}, watched when it may block; {@code out} writes into this stream. */
    void write(OutputStream out, byte[] bytes) throws IOException {
        written += bytes.length;
        if (sender == null || written <= UNWATCHED_BYTES) {
            out.write(bytes);
            return;
        }
        ScheduledFuture<?> watch = timers.next().scheduleAtFixedRate(() -> sender.streamNotBlocked(streamId),
                PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
        try {
            out.write(bytes);
        } finally {
            watch.cancel(false);
        }
    }
}
