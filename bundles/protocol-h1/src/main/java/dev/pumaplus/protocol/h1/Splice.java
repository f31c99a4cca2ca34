/*
 * The byte pipe of a hijacked HTTP/1.1 connection (... → app → hijack): once an app took the connection
 * (rack.hijack), every byte the client sends goes to the worker's hijack socket and every byte the app writes
 * goes to the client, unchanged, until both sides have closed.
 */
package dev.pumaplus.protocol.h1;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.ReferenceCountUtil;

/**
 * One direction's handler, installed on both channels, each naming the other as its peer. Backpressure: when
 * the peer cannot take more ({@code isWritable} false after a write) this side stops reading until the peer
 * drains (its writability change turns reading back on). Half-close: when this side's input ends (FIN, with
 * {@code ALLOW_HALF_CLOSURE} on) the peer's output is shut after everything before it was written, so an app's
 * {@code close_write} reaches the client as a FIN and the other way round; a side whose input and output
 * are both shut is closed. A close or reset of either side closes the other once its pending bytes are out.
 * Each instance runs on its own channel's event loop; writes to the peer are Netty's thread-safe writes.
 */
final class Splice extends ChannelInboundHandlerAdapter {

    private final Channel peer;

    Splice(Channel peer) {
        this.peer = peer;
    }

    /**
     * Splices the client connection of {@code http1} (an HTTP/1.1 handler's context) to {@code app}: the
     * handler and the {@code decoder} before it leave the client's pipeline, a splice goes on each side, and
     * {@code welcome} (which lets the app write) runs in between. Bytes the decoder still holds (it hands them
     * on when removed) reach the app after {@code welcome}. The client's event loop.
     */
    static void install(ChannelHandlerContext http1, ChannelHandler decoder, Channel app, Runnable welcome) {
        Channel client = http1.channel();
        client.config().setAutoRead(false);
        // Both splice handlers go in before WELCOME lets the app write; the client's goes in before the
        // decoder leaves, so the bytes the decoder still holds (it hands them on when removed) reach the app,
        // after WELCOME since they are written from this same thread.
        // Half-closes pass through the splice, so neither side may treat a FIN as a close any more.
        client.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
        app.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
        app.pipeline().addLast("splice", new Splice(client));
        http1.pipeline().addLast("splice", new Splice(app));
        welcome.run();
        http1.pipeline().remove(http1.handler());
        http1.pipeline().remove(decoder);
        app.config().setAutoRead(true);
        client.config().setAutoRead(true);
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
            // The peer runs on another event loop and may have drained between the check and the line above:
            // its writability change then found reading still on and left it so, and nothing would turn it
            // back on. Looking again after stopping closes that window.
            if (peer.isWritable()) {
                ctx.channel().config().setAutoRead(true);
            }
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

    /** This side sent FIN: pass it on as the peer's FIN, after the bytes before it. */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (!(evt instanceof ChannelInputShutdownEvent)) {
            ctx.fireUserEventTriggered(evt);
            return;
        }
        Channel self = ctx.channel();
        if (peer instanceof DuplexChannel duplex && peer.isActive()) {
            peer.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(written -> {
                if (written.isSuccess()) {
                    duplex.shutdownOutput().addListener(shut -> closeIfDone(duplex));
                } else {
                    peer.close();
                }
            });
        } else {
            peer.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
        if (self instanceof DuplexChannel duplexSelf) {
            closeIfDone(duplexSelf);
        }
    }

    /** A side whose input and output are both shut has nothing left to carry. */
    private static void closeIfDone(DuplexChannel channel) {
        if (channel.isInputShutdown() && channel.isOutputShutdown()) {
            channel.close();
        }
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
