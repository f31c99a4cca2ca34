/*
 * The response writes of one HTTP/3 request stream, guarded against a lost wake-up in Kwik's stream sender
 * that otherwise stops a large response for good.
 */
package dev.pumaplus.protocol.h3;

import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
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
 * <p>So a write that may block (once the stream has been given more than half that buffer; less cannot
 * fill it) is watched: every {@link #PERIOD_MILLIS} while it is blocked, the stream is told it is not
 * blocked, Kwik's own path for a flow-control update, which queues a request only when the count says none
 * is queued and whose request sends nothing when nothing is due. The watch is a virtual thread that lives
 * as long as the write. Streams given less pay nothing. Used for responses (H3RequestHandler) and for what
 * an app writes to WebTransport streams (WebTransportSession).
 *
 * <p>Threading: {@link #write} on the one thread that writes the stream.
 */
final class SendRearm {

    /** Half of Kwik's default stream send buffer, which the connector does not change, in bytes. */
    static final long UNWATCHED_BYTES = 25 * 1024;
    /** How long a blocked write may wait on a lost wake-up, ms. */
    static final long PERIOD_MILLIS = 50;

    private final FlowControlUpdateListener sender; // null when the stream is not Kwik's own implementation
    private final int streamId;
    private long written;

    /**
     * @param kwik     the QUIC stream's own output stream, as Kwik hands it out
     * @param streamId that stream's id
     */
    SendRearm(OutputStream kwik, long streamId) {
        this.sender = kwik instanceof FlowControlUpdateListener l ? l : null;
        this.streamId = (int) streamId; // Kwik's own stream ids are ints
    }

    /** {@code through.write(bytes)}, watched when it may block; {@code through} writes into this stream. */
    void write(OutputStream through, byte[] bytes) throws IOException {
        written += bytes.length;
        if (sender == null || written <= UNWATCHED_BYTES) {
            through.write(bytes);
            return;
        }
        Watch watch = new Watch();
        Thread kicker = Thread.ofVirtual().name("h3-send-rearm").start(watch);
        try {
            through.write(bytes);
        } finally {
            watch.ended = true;
            LockSupport.unpark(kicker);
        }
    }

    /** Tells the stream it is not blocked every period until the write it watches has ended. */
    private final class Watch implements Runnable {
        volatile boolean ended;

        @Override
        public void run() {
            while (true) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(PERIOD_MILLIS));
                if (ended) {
                    return;
                }
                sender.streamNotBlocked(streamId);
            }
        }
    }
}
