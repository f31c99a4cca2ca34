/*
 * The bytes of one request still to go down its worker link (queue → dispatch): the env payload encoded at
 * admission and the whole request body, in memory or in its unnamed spool file, held until a link has
 * delivered them. Made at admission, read by the link's event loop, discarded once delivered or by whoever
 * gives up on the request.
 */
package dev.pumaplus.host.queue;

import io.netty.buffer.ByteBuf;
import java.nio.channels.FileChannel;

/**
 * The parts stay here while a link sends them, so that a request whose REQUEST frame never reached a worker
 * (its link was dead) can be sent again, whole, by another link: a link writes retained duplicates of the
 * env and the in-memory body and reads the spool file by position, from 0 each time; it {@link #discard}s
 * the parts once the worker has the REQUEST frame and the body is written, or when the request is given up.
 * The body is complete from the start (the protocol submits a request only once its body arrived), so the
 * link sends it at the worker's speed and nothing here waits for the client.
 *
 * <p>Threading: every method is synchronized on this object; it calls nobody.
 */
final class PendingBody {

    private ByteBuf env;
    private ByteBuf body;
    private FileChannel file;

    /**
     * @param env  the env pair list; ownership transfers
     * @param body the body when held in memory (possibly empty); ownership transfers
     * @param file null, or the spool file holding the whole body from position 0; ownership transfers
     */
    PendingBody(ByteBuf env, ByteBuf body, FileChannel file) {
        this.env = env;
        if (body.isReadable()) {
            this.body = body;
        } else {
            body.release();
        }
        this.file = file;
    }

    /**
     * The env payload for one REQUEST frame: a retained duplicate the caller owns (its timing bytes are
     * written in place, shared by every copy); null once discarded.
     */
    synchronized ByteBuf env() {
        return env == null ? null : env.retainedDuplicate();
    }

    /** The in-memory body, a retained duplicate the caller owns; null when there is none or it was discarded. */
    synchronized ByteBuf body() {
        return body == null ? null : body.retainedDuplicate();
    }

    /**
     * The spool file, still owned here (read it by position, never close it); null when the body is not
     * spooled or was discarded.
     */
    synchronized FileChannel file() {
        return file;
    }

    /** Releases everything still held and closes the spool file. Idempotent. */
    synchronized void discard() {
        if (env != null) {
            env.release();
            env = null;
        }
        if (body != null) {
            body.release();
            body = null;
        }
        SpoolingBodyBuffer.closeSpool(file);
        file = null;
    }
}
