/*
 * One request's body on its way in (parse → queue): counted against the body limit, held in memory up to
 * 112 KiB and spooled to an unnamed temporary file beyond that, and submitted only once it is complete, so a
 * request never reaches the queue, let alone a worker slot, before the client has sent all of it. HTTP/1.1,
 * h2 and HTTP/3 feed every request body through one of these, which the host makes, so the rule exists once.
 */
package dev.pumaplus.spi;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.EventExecutor;
import java.nio.channels.FileChannel;

/**
 * The rule: a body of at most {@link #MEMORY_BYTES} is held in memory; once more has arrived, what is held
 * and every later byte go to a spool file that has no name (created in the host's spool directory,
 * {@code TMPDIR} or else {@code java.io.tmpdir}, and unlinked at once, so only its descriptor keeps it and
 * nothing is left behind if the host dies). When the piece marked last arrives the request is submitted with the whole body: the held bytes, or the spool file. Bytes past
 * {@code limitBytes} end the body instead ({@link Flow#TOO_LARGE}). The body never streams: the host and the
 * worker get it whole, at their own speed, never paced by the client.
 *
 * <p>Progress deadline ({@link #watch}): a body that brings no new byte for the given time is reported to
 * the protocol, which answers 408 and gives up on the request; the rule is puma's, whose reactor re-arms
 * {@code first_data_timeout} on every read of an unfinished request.
 *
 * <p>Lifecycle: one buffer per request, made by {@link RequestQueue#bodyBuffer} when its head is parsed and
 * fed with {@link #add} in arrival order up to the piece marked last, unless it is {@link #abandon}ed first. The buffer owns every
 * piece given to it from then on: it releases it, submits it or spools it. A single piece that is the whole
 * body is submitted as it is, so a bodyless request or one whose body came in one read costs no copy and no
 * extra buffer. Where a body's bytes wait before the request is runnable is decided here and nowhere else.
 *
 * <p>Threading: confined to the thread that reads the request (the connection's event loop for HTTP/1.1
 * and h2, the request's own thread for HTTP/3); the {@link Submitter} is called on it. The deadline's check
 * runs on the executor given to {@link #watch} and reads only the two volatile fields.
 */
public interface RequestBodyBuffer {

    /**
     * Body bytes held in memory (puma's {@code MAX_BODY}, 112 KiB): a body up to this size reaches the host
     * as a buffer, a larger one as a spool file.
     */
    int MEMORY_BYTES = 112 * 1024;

    /** What the protocol does after {@link #add}. */
    enum Flow {
        /** Keep reading from the client. */
        READ,
        /**
         * The body grew past the limit: every byte was released. The protocol answers 413 and takes
         * nothing more.
         */
        TOO_LARGE,
        /**
         * The host refused the request (its submit threw, e.g. because the host is shutting down), or the
         * spool file could not be made or written (the disk is full): the body was released and nothing more
         * is taken. The protocol answers 503, so the client never hangs.
         */
        REFUSED
    }

    /** How a protocol submits its request: {@link RequestQueue#submit} with its connection, head and sink. */
    @FunctionalInterface
    interface Submitter {
        /**
         * Submits the request with its whole body (ownership of both transfers), on the reading thread.
         *
         * @param body     the body when it is held in memory (possibly empty); empty when it was spooled
         * @param bodyFile the spool file holding the whole body from position 0 to its size, or null
         * @return the request's exchange
         * @throws RuntimeException when the host refuses the request ({@link Flow#REFUSED})
         */
        Exchange submit(ByteBuf body, FileChannel bodyFile);
    }

    /**
     * Arms the progress deadline: when {@code timeoutNanos} pass without a new body byte before the body
     * ended, {@code stalled} runs once on {@code timer} (the protocol then answers 408 and abandons this
     * buffer). Receiving a byte costs a field write. No-op for a timeout of 0 or less.
     *
     * @param timer the executor whose clock ({@link EventExecutor#ticker()}) and schedule the deadline uses
     */
    void watch(EventExecutor timer, long timeoutNanos, Runnable stalled);

    /**
     * Takes the next piece of the body (ownership transfers), and submits the request when the piece is the
     * last. A piece after the end is released.
     *
     * @param last true on the body's final piece (which may be empty)
     */
    Flow add(ByteBuf piece, boolean last);

    /**
     * The rest of the body will never come (the client went away, the protocol gave up on the request):
     * releases what is held and closes the spool file. Idempotent; later pieces are released.
     */
    void abandon();
}
