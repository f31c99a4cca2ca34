/*
 * The one error of the worker link codec: a frame or payload that breaks docs/PROTOCOL.md. Whoever reads
 * the link answers it with GOAWAY(1) and closes the link.
 */
package dev.pumaplus.wire;

import io.netty.handler.codec.CorruptedFrameException;

/**
 * A protocol error (docs/PROTOCOL.md, "Errors"): unknown type, oversized payload, malformed payload, or a
 * frame not allowed in the link's state. A {@link CorruptedFrameException}, so Netty's decoders pass it on
 * unwrapped.
 */
public final class ProtocolException extends CorruptedFrameException {

    private static final long serialVersionUID = 1L;

    /** @param message what was wrong, fit to send as a GOAWAY reason */
    public ProtocolException(String message) {
        super(message);
    }
}
