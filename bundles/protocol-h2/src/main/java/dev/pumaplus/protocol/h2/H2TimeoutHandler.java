/*
 * The deadlines of one HTTP/2 connection (accept → parse, and respond): the idle timeout, for a connection
 * with no open stream, and the write timeout, for one whose response data waits on a client that takes
 * none of it (flow-control window or socket). Either ends the connection with GOAWAY and a close.
 */
package dev.pumaplus.protocol.h2;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.DefaultHttp2GoAwayFrame;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2RemoteFlowController;
import io.netty.handler.codec.http2.Http2Stream;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * First in the connection's pipeline (it sees the bytes as they go to the socket, after TLS), so its own
 * close skips the frame codec's graceful close, which would wait for the very streams that are stuck.
 *
 * <p>Idle: the clock starts at the handoff and whenever the last open stream closes; frames without a
 * stream (PING, SETTINGS, WINDOW_UPDATE) do not stop it, so a client cannot hold an idle connection open
 * with pings. Once it reaches {@link H2Config#idleTimeoutSecs()} with no stream open: GOAWAY(NO_ERROR),
 * then close once that is written.
 *
 * <p>Write: while a stream is open, a check runs every second. Response data waits when the channel holds
 * unwritten bytes or a stream has frames queued behind its (or the connection's) flow-control window; it
 * has progressed when a write reached the socket. Waiting with no progress for
 * {@link H2Config#writeTimeoutSecs()} (measured from the later of the last progress and the first check
 * that saw the wait, so up to a second late): GOAWAY(ENHANCE_YOUR_CALM) and close at once; the streams'
 * exchanges are cancelled, which frees their workers.
 *
 * <p>Threading: the connection's event loop only.
 */
final class H2TimeoutHandler extends ChannelDuplexHandler {

    private static final long CHECK_PERIOD_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Http2Connection connection;
    private final long idleNanos;
    private final long writeNanos;
    private ChannelHandlerContext ctx;
    private ScheduledFuture<?> check;
    private long idleSinceNanos;
    private long lastProgressNanos;
    /** When a check first saw response data waiting, or -1 while none waits. */
    private long waitingSinceNanos = -1;

    /**
     * @param connection the connection of the frame codec this handler guards
     * @param config     the idle and write timeouts (0 or less: none)
     */
    H2TimeoutHandler(Http2Connection connection, H2Config config) {
        this.connection = connection;
        this.idleNanos = TimeUnit.SECONDS.toNanos(Math.max(0, config.idleTimeoutSecs()));
        this.writeNanos = TimeUnit.SECONDS.toNanos(Math.max(0, config.writeTimeoutSecs()));
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        idleSinceNanos = now();
        lastProgressNanos = idleSinceNanos;
        connection.addListener(new Http2ConnectionAdapter() {
            @Override
            public void onStreamActive(Http2Stream stream) {
                if (writeNanos > 0 && check != null && check.getDelay(TimeUnit.NANOSECONDS) > CHECK_PERIOD_NANOS) {
                    reschedule(CHECK_PERIOD_NANOS); // the idle check was far off; the write check is due sooner
                }
            }

            @Override
            public void onStreamClosed(Http2Stream stream) {
                if (connection.numActiveStreams() == 0) {
                    idleSinceNanos = now();
                    waitingSinceNanos = -1;
                }
            }
        });
        scheduleNext();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancel();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        cancel();
        super.channelInactive(ctx);
    }

    /** Every write that reaches the socket is progress. */
    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (writeNanos > 0) {
            ctx.write(msg, promise.unvoid()).addListener((ChannelFutureListener) written -> {
                if (written.isSuccess()) {
                    lastProgressNanos = now();
                }
            });
        } else {
            ctx.write(msg, promise);
        }
    }

    /** The event loop's clock, which its timers run on (a test moves it with an EmbeddedChannel's time). */
    private long now() {
        return ctx.executor().ticker().nanoTime();
    }

    private void scheduleNext() {
        long now = now();
        if (connection.numActiveStreams() > 0) {
            if (writeNanos > 0) {
                reschedule(CHECK_PERIOD_NANOS);
            } else if (idleNanos > 0) {
                reschedule(idleNanos); // only to see the connection idle again later
            }
        } else if (idleNanos > 0) {
            reschedule(Math.max(0, idleSinceNanos + idleNanos - now));
        } else if (writeNanos > 0) {
            reschedule(CHECK_PERIOD_NANOS);
        }
    }

    private void reschedule(long delayNanos) {
        cancel();
        check = ctx.executor().schedule(this::check, delayNanos, TimeUnit.NANOSECONDS);
    }

    private void cancel() {
        if (check != null) {
            check.cancel(false);
            check = null;
        }
    }

    private void check() {
        check = null;
        if (!ctx.channel().isActive()) {
            return;
        }
        long now = now();
        if (connection.numActiveStreams() == 0) {
            waitingSinceNanos = -1;
            if (idleNanos > 0 && now - idleSinceNanos >= idleNanos) {
                ctx.channel().writeAndFlush(new DefaultHttp2GoAwayFrame(Http2Error.NO_ERROR))
                        .addListener(written -> ctx.close());
                return;
            }
        } else if (writeNanos > 0) {
            if (!responseDataWaits()) {
                waitingSinceNanos = -1;
            } else {
                if (waitingSinceNanos < 0) {
                    waitingSinceNanos = now;
                }
                if (now - Math.max(lastProgressNanos, waitingSinceNanos) >= writeNanos) {
                    ctx.channel().writeAndFlush(new DefaultHttp2GoAwayFrame(Http2Error.ENHANCE_YOUR_CALM));
                    ctx.close(); // not after the GOAWAY: the socket may take nothing more
                    return;
                }
            }
        }
        scheduleNext();
    }

    /** Bytes wait in the channel, or frames of an open stream wait behind a flow-control window. */
    private boolean responseDataWaits() {
        ChannelOutboundBuffer out = ctx.channel().unsafe().outboundBuffer();
        if (out != null && out.totalPendingWriteBytes() > 0) {
            return true;
        }
        Http2RemoteFlowController flow = connection.remote().flowController();
        boolean[] queued = {false};
        try {
            connection.forEachActiveStream(stream -> {
                queued[0] = flow.hasFlowControlled(stream);
                return !queued[0];
            });
        } catch (Http2Exception e) {
            return true; // the visitor throws nothing; were it to, the connection is in no state to trust
        }
        return queued[0];
    }
}
