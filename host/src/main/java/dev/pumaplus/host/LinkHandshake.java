/*
 * The first step of every connection to link.sock: waits for the peer's HELLO, answers WELCOME (or
 * GOAWAY(2) for an unsupported version) and turns the link into a worker slot or the shepherd's link.
 */
package dev.pumaplus.host;

import dev.pumaplus.wire.Frame;
import dev.pumaplus.wire.FrameType;
import dev.pumaplus.wire.Goaway;
import dev.pumaplus.wire.Hello;
import dev.pumaplus.wire.ProtocolException;
import dev.pumaplus.wire.Welcome;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Handles the NEW state of docs/PROTOCOL.md's state machine. The host speaks version 3 only (the
 * timing fields of REQUEST and RESPONSE_HEAD since 2; hijack, early hints, file bodies and the shepherd's
 * PHASED_RESTART and WORKER_COUNT since 3): a peer whose highest version is below 3 gets GOAWAY(2) and the
 * link closes; a peer offering a higher version is answered WELCOME(3), the highest version the host
 * supports that is ≤ the peer's, as the handshake rule says. Any frame other than HELLO, or a role
 * other than 0/1/2, is a protocol error. A hijack connection (role 2) gets no WELCOME here: it goes to
 * {@link Hijacks}, which answers once the hijack it names was announced. Runs on the link's event loop; one instance per channel.
 */
final class LinkHandshake extends ChannelInboundHandlerAdapter {

    /** The protocol version this host speaks. */
    static final int VERSION = 3;

    private final LinkServer server;

    LinkHandshake(LinkServer server) {
        this.server = server;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Frame frame = (Frame) msg;
        try {
            if (frame.type() != FrameType.HELLO) {
                throw new ProtocolException(FrameType.name(frame.type()) + " before HELLO");
            }
            Hello hello = Hello.decode(frame.payload());
            if (hello.version() < VERSION) {
                ctx.writeAndFlush(new Goaway(Goaway.CODE_UNSUPPORTED_VERSION,
                                "version " + hello.version() + " unsupported, this host speaks " + VERSION)
                                .toFrame(ctx.alloc()))
                        .addListener(ChannelFutureListener.CLOSE);
                return;
            }
            if (hello.role() == Hello.ROLE_HIJACK) {
                long requestId = Hijacks.requestId(hello.capabilities());
                if (requestId < 0) {
                    throw new ProtocolException("hijack HELLO names no request");
                }
                ctx.channel().config().setAutoRead(false);
                server.hijacks().arrive(requestId, ctx.channel());
                return;
            }
            if (hello.role() != Hello.ROLE_WORKER && hello.role() != Hello.ROLE_SHEPHERD) {
                throw new ProtocolException("unknown role " + hello.role());
            }
            long id = server.nextLinkId();
            ctx.writeAndFlush(new Welcome(VERSION, id).toFrame(ctx.alloc()));
            if (hello.role() == Hello.ROLE_WORKER) {
                ctx.pipeline().replace(this, "worker", server.workerLink(id, ctx.channel(), hello)); // joins the queue
            } else {
                ctx.pipeline().replace(this, "shepherd", new ShepherdLink(hello, server.shepherdListener()));
            }
        } finally {
            frame.release();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        WorkerLink.protocolError(ctx.channel(), cause.getMessage());
    }
}
