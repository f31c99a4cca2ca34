/*
 * The bytes of one request still to go down its worker link (queue → dispatch): the env payload encoded at
 * admission and the whole request body, in memory or in its unnamed spool file, held until the link takes
 * them. Made at admission, emptied by the link's event loop, or discarded by whoever gives up on the request.
 */
package dev.pumaplus.host;

import dev.pumaplus.spi.RequestBodyBuffer;
import io.netty.buffer.ByteBuf;
import java.nio.channels.FileChannel;

/**
 * Each part is taken once; what was not taken when the request is given up is released by {@link #discard}.
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

    /** The env payload, once; null afterwards (or once discarded). */
    synchronized ByteBuf takeEnv() {
        ByteBuf e = env;
        env = null;
        return e;
    }

    /** The in-memory body, once; null when there is none (no body, a spooled one, taken or discarded). */
    synchronized ByteBuf takeBody() {
        ByteBuf b = body;
        body = null;
        return b;
    }

    /** The spool file, once; null when the body is not spooled (or was taken or discarded). */
    synchronized FileChannel takeFile() {
        FileChannel f = file;
        file = null;
        return f;
    }

    /** Releases everything still held, the env included. Idempotent. */
    synchronized void discard() {
        if (env != null) {
            env.release();
            env = null;
        }
        if (body != null) {
            body.release();
            body = null;
        }
        RequestBodyBuffer.closeSpool(file);
        file = null;
    }
}
