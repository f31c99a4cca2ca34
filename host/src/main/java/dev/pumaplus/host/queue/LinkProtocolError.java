/*
 * How any link to a Ruby process (worker, shepherd, or one still in its handshake) ends when the peer breaks
 * docs/PROTOCOL.md: GOAWAY(1) with the reason, then close, logged once.
 */
package dev.pumaplus.host.queue;

import dev.pumaplus.wire.Goaway;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.util.AttributeKey;

/** Stateless apart from a mark on the channel; any thread. */
public final class LinkProtocolError {

    /** WorkerLink's logger, where the link trouble of a worker or shepherd has always been logged. */
    private static final System.Logger LOG = System.getLogger(WorkerLink.class.getName());
    /** Set on a link's channel once {@link #answer} answered it. */
    private static final AttributeKey<Boolean> PROTOCOL_ERROR =
            AttributeKey.valueOf(LinkProtocolError.class, "protocolError");

    private LinkProtocolError() {
    }

    /**
     * Sends GOAWAY(1) with {@code reason}, closes {@code channel} and logs it: once per link, though frames
     * decoded in the same read may each fail before the close completes (the peer broke the protocol once).
     */
    public static void answer(Channel channel, String reason) {
        if (!channel.isActive() || channel.attr(PROTOCOL_ERROR).getAndSet(Boolean.TRUE) != null) {
            return;
        }
        LOG.log(System.Logger.Level.WARNING, "worker link " + channel.id().asShortText() + ": protocol error: " + reason
                + "; sent GOAWAY(1), closing the link");
        channel.writeAndFlush(new Goaway(Goaway.CODE_PROTOCOL_ERROR, reason == null ? "protocol error" : reason)
                        .toFrame(channel.alloc()))
                .addListener(ChannelFutureListener.CLOSE);
    }
}
