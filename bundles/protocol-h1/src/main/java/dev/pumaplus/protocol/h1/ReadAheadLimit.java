/*
 * The read-ahead bound of one HTTP/1.1 connection (parse → queue): how many requests may be read ahead of
 * the one being answered before the connection stops reading; H1ConnectionHandler holds and resumes it.
 */
package dev.pumaplus.protocol.h1;

import io.netty.channel.ChannelHandlerContext;

/**
 * At most {@link H1Config#maxPipelinedRequests()} requests are read ahead of the one being answered; at that
 * bound the connection stops reading and the decoder stops decoding ({@link H1RequestDecoder#hold}) until a
 * response completes and the channel is writable (a completed response has been handed to the channel, not
 * yet taken by the client), so a client pipelining without reading its answers holds no more than that many
 * requests, and their responses, in the host. Event loop only.
 */
final class ReadAheadLimit {

    private final ChannelHandlerContext ctx;
    private final H1RequestDecoder decoder;
    private final int maxPipelined;
    /** The decoder is held at the bound (and auto-read is off). */
    private boolean held;
    /** When the decoder was last resumed (event loop ticker); a held request's header clock starts no earlier. */
    private long resumedAtNanos = Long.MIN_VALUE;

    ReadAheadLimit(ChannelHandlerContext ctx, H1RequestDecoder decoder, int maxPipelined) {
        this.ctx = ctx;
        this.decoder = decoder;
        this.maxPipelined = maxPipelined;
    }

    boolean held() {
        return held;
    }

    long resumedAtNanos() {
        return resumedAtNanos;
    }

    /** Stops reading if {@code pending} responses are past the bound: the next request waits in the decoder. */
    void holdIfOver(int pending) {
        if (pending > maxPipelined) {
            held = true;
            decoder.hold();
            ctx.channel().config().setAutoRead(false);
        }
    }

    /**
     * If held and {@code pending} responses are within the bound again: decodes the requests the decoder kept
     * (each is submitted before this returns, and may hold it again) and, unless that happened, reads on.
     *
     * @return true if it resumed and the connection is still open (a failing decoder closes it)
     */
    boolean resumeIfRoom(int pending) {
        if (!held || pending > maxPipelined) {
            return false;
        }
        held = false;
        resumedAtNanos = RequestClock.nanoTime(ctx.executor());
        // On before decoding: a request decoded now turns it off again if the bound is hit.
        ctx.channel().config().setAutoRead(true);
        try {
            decoder.resume(ctx.pipeline().context(decoder));
        } catch (Exception e) {
            ctx.close(); // the decoder reports a malformed request as a message; anything else ends the connection
            return false;
        }
        return true;
    }
}
