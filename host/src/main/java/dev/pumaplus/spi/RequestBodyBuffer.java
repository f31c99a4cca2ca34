/*
 * One request's body on its way in (parse → queue): counted against the body limit, held until it is
 * complete or 1 MiB has arrived, then submitted with what it holds while the rest streams to the host.
 * HTTP/1.1, h2 and HTTP/3 feed every request body through one of these, so the rule exists once.
 */
package dev.pumaplus.spi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;

/**
 * The rule: a body of at most {@link #SUBMIT_BYTES} is held whole and submitted complete once its last
 * piece arrives; a larger one is submitted as soon as {@code SUBMIT_BYTES} have arrived, with exactly those
 * bytes, and every later byte goes to {@link Exchange#writeBody} as it arrives. A body of exactly
 * {@code SUBMIT_BYTES} whose end has not been seen yet counts as larger (its end then streams as an empty
 * last piece). Bytes past {@code limitBytes} end the body instead ({@link Flow#TOO_LARGE}).
 *
 * <p>Lifecycle: one buffer per request, created when its head is parsed and fed with {@link #add} in
 * arrival order up to the piece marked last, unless it is {@link #abandon}ed first. The buffer owns every
 * piece given to it from then on: it releases it, submits it or streams it. A single piece that is the whole
 * body is submitted as it is, so a bodyless request or one whose body came in one read costs no copy and no
 * extra buffer. Where a body's bytes wait before the request is runnable is decided here and nowhere else.
 *
 * <p>Threading: not thread-safe. Confined to the thread that reads the request (the connection's event loop
 * for HTTP/1.1 and h2, the request's own thread for HTTP/3); the {@link Submitter} is called on it.
 */
public final class RequestBodyBuffer {

    /**
     * Body bytes held before a request is submitted (docs/PROTOCOL.md {@code MAX_PAYLOAD}, 1 MiB): a body up
     * to this size reaches the host whole, a larger one with exactly this many bytes and the rest streamed.
     */
    public static final int SUBMIT_BYTES = 1 << 20;

    /** What the protocol does after {@link #add}. */
    public enum Flow {
        /** Keep reading from the client. */
        READ,
        /**
         * The host asked to pause ({@link Exchange#writeBody} returned false): stop reading from the client
         * until {@link ResponseSink#resumeRequestBody()}.
         */
        PAUSE,
        /**
         * The body grew past the limit: every byte was released and, if the request was submitted, its
         * exchange cancelled. The protocol answers 413 or ends the request; nothing more is taken.
         */
        TOO_LARGE,
        /**
         * The host refused the request (its submit threw, e.g. because the host is shutting down): the body
         * was released and nothing more is taken. The protocol answers 503, so the client never hangs.
         */
        REFUSED
    }

    /** How a protocol submits its request: {@link RequestQueue#submit} with its connection, head and sink. */
    @FunctionalInterface
    public interface Submitter {
        /**
         * Submits the request with {@code body} (ownership transfers), on the reading thread.
         *
         * @param complete whether {@code body} is the whole body
         * @return the request's exchange
         * @throws RuntimeException when the host refuses the request ({@link Flow#REFUSED})
         */
        Exchange submit(ByteBuf body, boolean complete);
    }

    /** Before the submit: null, the only non-empty piece so far, or {@link #pieces}. */
    private ByteBuf held;
    /** Created at the second non-empty piece held. */
    private CompositeByteBuf pieces;
    private long received;
    /** Set by the submit; later bytes stream to it. */
    private Exchange exchange;
    /** The last piece was seen, or the body was refused, abandoned or too large: nothing more is taken. */
    private boolean ended;
    private final long limitBytes;
    private final Submitter submitter;

    /**
     * @param limitBytes the most body bytes a request may have ({@code http_content_length_limit}); 0 or
     *                   less: no limit
     * @param submitter  called once, when the request becomes runnable
     */
    public RequestBodyBuffer(long limitBytes, Submitter submitter) {
        this.limitBytes = limitBytes;
        this.submitter = submitter;
    }

    /**
     * Takes the next piece of the body (ownership transfers) and submits the request when this piece makes
     * it runnable; once submitted, streams the piece to the host. A piece after the end is released.
     *
     * @param last true on the body's final piece (which may be empty)
     */
    public Flow add(ByteBuf piece, boolean last) {
        if (ended) {
            piece.release();
            return Flow.READ;
        }
        received += piece.readableBytes();
        if (limitBytes > 0 && received > limitBytes) {
            piece.release();
            abandon();
            return Flow.TOO_LARGE;
        }
        ended = last;
        if (exchange != null) {
            return stream(piece, last);
        }
        hold(piece);
        if (received > SUBMIT_BYTES || (received == SUBMIT_BYTES && !last)) {
            return submitFirstPart(last);
        }
        if (last) {
            ByteBuf body = held == null ? Unpooled.EMPTY_BUFFER : held;
            held = null;
            pieces = null;
            return submit(body, true) ? Flow.READ : Flow.REFUSED;
        }
        return Flow.READ;
    }

    /**
     * The rest of the body will never come (the client went away, the protocol gave up on the request):
     * releases what is held and, if the request was submitted before its body ended, cancels its exchange,
     * since the host would otherwise wait for bytes that never arrive. Idempotent; later pieces are released.
     */
    public void abandon() {
        if (held != null) {
            held.release();
            held = null;
            pieces = null;
        }
        if (!ended && exchange != null) {
            exchange.cancel();
        }
        ended = true;
    }

    private void hold(ByteBuf piece) {
        if (!piece.isReadable()) {
            piece.release();
        } else if (held == null) {
            held = piece;
        } else {
            if (pieces == null) {
                pieces = Unpooled.compositeBuffer(Integer.MAX_VALUE);
                pieces.addComponent(true, held);
                held = pieces;
            }
            pieces.addComponent(true, piece);
        }
    }

    /** The held bytes reached {@link #SUBMIT_BYTES}: submits exactly that many, streams the rest. */
    private Flow submitFirstPart(boolean last) {
        ByteBuf all = held;
        held = null;
        pieces = null;
        ByteBuf first = all.readRetainedSlice(SUBMIT_BYTES);
        ByteBuf rest = all.readRetainedSlice(all.readableBytes());
        all.release();
        if (!submit(first, false)) {
            rest.release();
            return Flow.REFUSED;
        }
        if (rest.isReadable() || last) {
            return stream(rest, last);
        }
        rest.release();
        return Flow.READ;
    }

    /** False when the host refused the request: the body ends there. */
    private boolean submit(ByteBuf body, boolean complete) {
        try {
            exchange = submitter.submit(body, complete);
            return true;
        } catch (RuntimeException e) {
            // body went to the host with the call (RequestQueue.submit's ownership rule), refused or not.
            ended = true;
            return false;
        }
    }

    private Flow stream(ByteBuf piece, boolean last) {
        return exchange.writeBody(piece, last) || last ? Flow.READ : Flow.PAUSE;
    }
}
