/*
 * Bounds the client connections one listener keeps open (the accept step of accept → parse → ...): at the
 * bound the listening socket stops accepting, so further clients wait in the kernel's backlog until a
 * connection closes, whatever protocol (HTTP/1.1, h2, TLS) the open ones speak.
 */
package dev.pumaplus.protocol.h1;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.ArrayDeque;

/**
 * Sits in the server channel's pipeline, before Netty's acceptor, and sees every accepted connection.
 * Reaching the bound turns auto-read off on the listening socket, so no further accept happens; a
 * connection closing turns it on again. One read of the listening socket may accept a few connections at
 * once (up to the channel's messages per read) before auto-read is checked: those past the bound are
 * kept, accepted but not yet served (never read, never answered), and served in order as others close.
 *
 * <p>Threading: everything runs on the server channel's event loop; a connection's close (on its own
 * loop) hops there.
 */
final class AcceptLimit extends ChannelInboundHandlerAdapter {

    private final int max;
    /** Connections accepted and not yet closed, waiting ones included. */
    private int open;
    /** Accepted past the bound in one read: served once others close. */
    private final ArrayDeque<Channel> waiting = new ArrayDeque<>();

    /** @param max connections served at once, at least 1 */
    AcceptLimit(int max) {
        this.max = Math.max(1, max);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Channel connection = (Channel) msg;
        open++;
        connection.closeFuture().addListener(closed -> ctx.executor().execute(() -> closed(ctx)));
        if (open > max) {
            waiting.add(connection);
        } else {
            ctx.fireChannelRead(connection);
        }
        if (open >= max) {
            ctx.channel().config().setAutoRead(false);
        }
    }

    private void closed(ChannelHandlerContext ctx) {
        open--;
        Channel next = waiting.poll();
        if (next != null) {
            ctx.fireChannelRead(next);
        }
        if (open < max && ctx.channel().isOpen()) {
            ctx.channel().config().setAutoRead(true);
        }
    }

    /** The listener closed: connections accepted but never served are closed too. */
    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        Channel connection;
        while ((connection = waiting.poll()) != null) {
            connection.unsafe().closeForcibly();
        }
        super.channelInactive(ctx);
    }
}
