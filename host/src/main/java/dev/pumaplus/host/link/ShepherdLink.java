/*
 * The shepherd's control link to the host: carries the one CONFIG frame the launcher waits for at boot,
 * GOAWAY in either direction, and the host's PHASED_RESTART, WORKER_COUNT and EXTRA_SLOTS (written by
 * ShepherdGeneration, never read here); its closing is how the host learns the shepherd is gone.
 */
package dev.pumaplus.host.link;

import dev.pumaplus.host.queue.LinkProtocolError;
import dev.pumaplus.wire.Frame;
import dev.pumaplus.wire.FrameType;
import dev.pumaplus.wire.Hello;
import dev.pumaplus.wire.ProtocolException;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.nio.charset.StandardCharsets;

/**
 * After WELCOME, accepts exactly one CONFIG, then GOAWAY only (docs/PROTOCOL.md rule 5); anything else is
 * a protocol error. Runs on the link's event loop; the {@link Listener} is called there too.
 */
final class ShepherdLink extends ChannelInboundHandlerAdapter {

    /**
     * What Generations learns from a shepherd link. Called on the link's event loop. The link closing
     * needs no callback: Generations watches the shepherd's process, whose exit is authoritative.
     */
    @FunctionalInterface
    public interface Listener {

        /** The shepherd sent its resolved configuration (UTF-8 JSON text). */
        void configured(Channel link, Hello hello, String json);
    }

    private final Hello hello;
    private final Listener listener;
    private boolean configured;

    ShepherdLink(Hello hello, Listener listener) {
        this.hello = hello;
        this.listener = listener;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Frame frame = (Frame) msg;
        try {
            switch (frame.type()) {
                case FrameType.CONFIG -> {
                    if (configured) {
                        throw new ProtocolException("second CONFIG on the shepherd link");
                    }
                    configured = true;
                    listener.configured(ctx.channel(), hello, frame.payload().toString(StandardCharsets.UTF_8));
                }
                case FrameType.GOAWAY -> {
                    // The shepherd is leaving; its process exit is what the launcher acts on.
                }
                default -> throw new ProtocolException(FrameType.name(frame.type()) + " not allowed on the shepherd link");
            }
        } finally {
            frame.release();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LinkProtocolError.answer(ctx.channel(), cause.getMessage());
    }
}
