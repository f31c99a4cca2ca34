/*
 * The byte pipe of a hijacked HTTP/1.1 connection (... → app → hijack): once an app took the connection
 * (rack.hijack), every byte the client sends goes to the worker's hijack socket and every byte the app writes
 * goes to the client, unchanged, until either side closes.
 */
package dev.pumaplus.protocol.h1;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;

/**
 * One direction's handler, installed on both channels, each naming the other as its peer. Backpressure: when
 * the peer cannot take more ({@code isWritable} false after a write) this side stops reading until the peer
 * drains (its writability change turns reading back on). A close of either side flushes what is pending to
 * the other and closes it too; half-closure is not carried over. Each instance runs on its own channel's
 * event loop; writes to the peer are Netty's thread-safe channel writes.
 */
final class Splice extends ChannelInboundHandlerAdapter {

    private final Channel peer;

    Splice(Channel peer) {
        this.peer = peer;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!peer.isActive()) {
            ReferenceCountUtil.release(msg);
            return;
        }
        peer.write(msg, peer.voidPromise());
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        peer.flush();
        if (!peer.isWritable()) {
            ctx.channel().config().setAutoRead(false);
        }
    }

    /** This side drained: the peer may read again (it stopped when this side filled up). */
    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            peer.config().setAutoRead(true);
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (peer.isActive()) {
            peer.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
