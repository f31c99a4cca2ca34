/*
 * The bytes of one request still to go down its worker link (queue → dispatch): the env payload encoded at
 * admission and the request body the protocol streams in meanwhile, held until the link takes them. Filled
 * by the protocol's event loop through the exchange, emptied by the link's event loop.
 */
package dev.pumaplus.host;

import io.netty.buffer.ByteBuf;
import java.util.ArrayDeque;
import java.util.Queue;

/**
 * A hand-over buffer with request-body backpressure: more than {@link #HOLD_LIMIT} bytes held asks the
 * protocol to pause (the exchange's {@code writeBody} answers false), and {@link #takeResume} says when it
 * may go on. Before the link first takes from it ({@link #takeInto}) everything is simply held; after
 * that, each chunk that arrives while none is on its way asks for one drain on the link's loop, so chunks
 * arriving together travel in one task.
 *
 * <p>Threading: every method is synchronized on this object; it calls nobody.
 */
final class PendingBody {

    /** Bytes held for the link before the protocol is asked to pause. */
    static final int HOLD_LIMIT = 1 << 20;

    /** {@link #add} result bit: the chunk is accepted without a pause. */
    static final int ACCEPTED = 1;
    /** {@link #add} result bit: the link must be asked to drain (once, until its next {@link #takeInto}). */
    static final int DRAIN = 2;

    private ByteBuf env;
    /** The first held chunk; most bodies are one chunk or none, so the deque is made only for a second. */
    private ByteBuf first;
    private ArrayDeque<ByteBuf> more;
    private long heldBytes;
    private boolean ended;
    private boolean started;
    private boolean drainScheduled;
    private boolean resumeWanted;

    /**
     * @param env      the env pair list; ownership transfers
     * @param body     the body buffered at submit (possibly empty); ownership transfers
     * @param complete whether {@code body} is the whole body
     */
    PendingBody(ByteBuf env, ByteBuf body, boolean complete) {
        this.env = env;
        if (body.isReadable()) {
            first = body;
            heldBytes = body.readableBytes();
        } else {
            body.release();
        }
        ended = complete;
    }

    /**
     * Holds the next chunk (ownership transfers; dropped once the body ended or was discarded).
     *
     * @param linkWritable whether the link's socket takes more now (true before dispatch)
     * @return {@link #ACCEPTED} and {@link #DRAIN} bits
     */
    synchronized int add(ByteBuf chunk, boolean last, boolean linkWritable) {
        if (ended) {
            chunk.release();
            return ACCEPTED;
        }
        if (chunk.isReadable()) {
            hold(chunk);
        } else {
            chunk.release();
        }
        ended = last;
        int result = 0;
        if (started && !drainScheduled) {
            drainScheduled = true;
            result = DRAIN;
        }
        if (heldBytes <= HOLD_LIMIT && (!started || linkWritable)) {
            result |= ACCEPTED;
        } else if (!last) {
            resumeWanted = true;
        }
        return result;
    }

    private void hold(ByteBuf chunk) {
        heldBytes += chunk.readableBytes();
        if (first == null) {
            first = chunk;
        } else {
            if (more == null) {
                more = new ArrayDeque<>(4);
            }
            more.add(chunk);
        }
    }

    /** The env payload, once; null afterwards (or once discarded). */
    synchronized ByteBuf takeEnv() {
        ByteBuf e = env;
        env = null;
        return e;
    }

    /**
     * Moves every held chunk, in order, to the end of {@code out} (the link's own queue) and marks the body
     * started. Returns whether the body ends with them. Link event loop.
     */
    synchronized boolean takeInto(Queue<ByteBuf> out) {
        started = true;
        drainScheduled = false;
        if (first != null) {
            out.add(first);
            first = null;
            if (more != null) {
                out.addAll(more);
                more.clear();
            }
        }
        heldBytes = 0;
        return ended;
    }

    /**
     * Drops what is held and ends the body early (the client went away, or the worker answered without
     * reading it all). Returns true if a drain must be asked of the link so it sends the end.
     */
    synchronized boolean truncate() {
        release();
        if (ended) {
            return false;
        }
        ended = true;
        if (started && !drainScheduled) {
            drainScheduled = true;
            return true;
        }
        return false;
    }

    /** Whether the protocol paused for us and may resume now; clears the wish. Link event loop. */
    synchronized boolean takeResume(boolean linkWritable) {
        if (resumeWanted && linkWritable && heldBytes <= HOLD_LIMIT) {
            resumeWanted = false;
            return true;
        }
        return false;
    }

    /** Releases everything still held, the env included, and ends the body. Idempotent. */
    synchronized void discard() {
        if (env != null) {
            env.release();
            env = null;
        }
        release();
        ended = true;
    }

    private void release() {
        if (first != null) {
            first.release();
            first = null;
        }
        if (more != null) {
            more.forEach(ByteBuf::release);
            more.clear();
        }
        heldBytes = 0;
    }
}
