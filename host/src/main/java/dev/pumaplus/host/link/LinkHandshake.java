/*
 * The first step of every connection to link.sock and hijack.sock: waits for the peer's HELLO, answers
 * WELCOME (or GOAWAY(2) for an unsupported version) and turns the link into a worker slot or the shepherd's
 * link, or hands a hijack connection on.
 */
package dev.pumaplus.host.link;

import dev.pumaplus.host.queue.LinkProtocolError;
import dev.pumaplus.wire.Frame;
import dev.pumaplus.wire.FrameType;
import dev.pumaplus.wire.Goaway;
import dev.pumaplus.wire.Hello;
import dev.pumaplus.wire.Protocol;
import dev.pumaplus.wire.ProtocolException;
import dev.pumaplus.wire.Welcome;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;

/**
 * Handles the NEW state of docs/PROTOCOL.md's state machine. The host speaks {@link Protocol#MIN_VERSION} to
 * {@link Protocol#VERSION}: a peer whose highest version is below that gets GOAWAY(2) and the link closes;
 * any other is answered WELCOME with the highest version the host supports that is ≤ the peer's, as the
 * handshake rule says. Any frame other than HELLO is a protocol error (a HELLO with an unknown
 * role never gets here: the FrameDecoder rejects it), and so is a role on the other socket than its own:
 * role 2 on link.sock, 0 or 1 on hijack.sock. A hijack connection (role 2) gets no WELCOME here: it goes to
 * {@link dev.pumaplus.host.queue.Hijacks}, which answers once the hijack of the request its HELLO names was announced. Runs
 * on the link's event loop; one instance per channel. The HELLO frame is released when this handler returns.
 */
final class LinkHandshake extends SimpleChannelInboundHandler<Frame> {

    private final LinkServer server;
    private final boolean hijackSocket;

    /** @param hijackSocket whether the connection came to hijack.sock (else link.sock) */
    LinkHandshake(LinkServer server, boolean hijackSocket) {
        this.server = server;
        this.hijackSocket = hijackSocket;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Frame frame) {
        if (frame.type() != FrameType.HELLO) {
            throw new ProtocolException(FrameType.name(frame.type()) + " before HELLO");
        }
        Hello hello = Hello.decode(frame.payload());
        if (hello.version() < Protocol.MIN_VERSION) {
            ctx.writeAndFlush(new Goaway(Goaway.CODE_UNSUPPORTED_VERSION,
                            "version " + hello.version() + " unsupported, this host speaks " + Protocol.MIN_VERSION
                                    + " to " + Protocol.VERSION)
                            .toFrame(ctx.alloc()))
                    .addListener(ChannelFutureListener.CLOSE);
            return;
        }
        if ((hello.role() == Hello.ROLE_HIJACK) != hijackSocket) {
            throw new ProtocolException("HELLO role " + hello.role() + " on "
                    + (hijackSocket ? LinkServer.HIJACK_SOCKET : "link.sock") + ": role 2 dials "
                    + LinkServer.HIJACK_SOCKET + ", roles 0 and 1 link.sock");
        }
        if (hello.role() == Hello.ROLE_HIJACK) {
            ctx.channel().config().setAutoRead(false);
            server.hijacks().arrive(hello.requestId(), ctx.channel());
            return;
        }
        long id = server.nextLinkId();
        ctx.writeAndFlush(new Welcome(Math.min(hello.version(), Protocol.VERSION), id).toFrame(ctx.alloc()));
        if (hello.role() == Hello.ROLE_WORKER) {
            ctx.pipeline().replace(this, "worker", server.workerLink(id, ctx.channel(), hello)); // joins the queue
        } else {
            ctx.pipeline().replace(this, "shepherd", new ShepherdLink(hello, server.shepherdListener()));
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LinkProtocolError.answer(ctx.channel(), cause.getMessage());
    }
}
