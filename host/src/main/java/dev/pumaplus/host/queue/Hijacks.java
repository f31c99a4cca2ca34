/*
 * Where a hijacked request's two halves meet: the worker link announces a hijack (HIJACK or HIJACK_HEAD
 * frame) and the worker's second connection to hijack.sock (HELLO role 2, naming the request) arrives, in
 * either order; once both are here the connection is handed to the request's protocol, which splices it
 * to the client's connection (docs/PROTOCOL.md, "Hijack").
 */
package dev.pumaplus.host.queue;

import dev.pumaplus.wire.Frame;
import dev.pumaplus.wire.FrameEncoder;
import dev.pumaplus.wire.Goaway;
import dev.pumaplus.wire.Welcome;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelPipeline;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Pairs offers (from a {@link WorkerLink}'s event loop) with hijack connections (from a
 * {@link dev.pumaplus.host.link.LinkHandshake}), keyed by request id. A connection that names no announced request waits
 * {@link #WAIT_SECONDS} for the announcement and is then closed; an announced partial hijack whose connection
 * never comes fails its request after the same time (the head was not written yet). Thread-safe.
 */
public final class Hijacks {

    /** Seconds one half waits for the other. The worker dials right after announcing, so this is generous. */
    static final long WAIT_SECONDS = 10;

    /**
     * An announced hijack: the exchange, the link that runs it, and for a partial hijack the head to write
     * first (status 0 and no headers for a full hijack).
     */
    record Offer(QueuedExchange exchange, WorkerLink link, int status, List<Map.Entry<String, String>> headers,
                 int version) {
    }

    private final Map<Long, Offer> offers = new HashMap<>();
    private final Map<Long, Channel> arrived = new HashMap<>();

    /** A link announced a hijack of request {@code requestId}. Link event loop. */
    void offer(long requestId, Offer offer) {
        Channel channel = meet(requestId, offer, offers, arrived);
        if (channel != null) {
            commit(offer, channel);
            return;
        }
        // Only a partial hijack can be left waiting here: a full one's connection comes before the worker's
        // RESPONSE_HEAD, and withdraw() ends the offer then.
        offer.link().channel.eventLoop().schedule(() -> {
            ResponseRecord response = offer.exchange().response;
            if (withdraw(requestId, offer) && !response.cancelled()) {
                response.fail(502, "the worker's hijack connection never came", false);
            }
        }, WAIT_SECONDS, TimeUnit.SECONDS);
    }

    /**
     * One half of request {@code requestId}'s hijack is here: takes the other half from {@code others}, or, when
     * it has not come yet, leaves {@code half} in {@code waiting} for it and returns null.
     */
    private synchronized <H, O> O meet(long requestId, H half, Map<Long, H> waiting, Map<Long, O> others) {
        O other = others.remove(requestId);
        if (other == null) {
            waiting.put(requestId, half);
        }
        return other;
    }

    /**
     * Removes {@code offer} if it is still unclaimed; true if it was. A full hijack the app did not complete
     * (the dial failed and the app answered normally) is withdrawn when its response head arrives.
     */
    synchronized boolean withdraw(long requestId, Offer offer) {
        return offers.remove(requestId, offer);
    }

    /** Whether request {@code requestId}'s hijack was announced and not yet claimed. */
    synchronized boolean pending(long requestId) {
        return offers.containsKey(requestId);
    }

    /** Whether a hijack connection naming {@code requestId} has arrived and waits for its announcement. */
    public synchronized boolean waiting(long requestId) {
        return arrived.containsKey(requestId);
    }

    /**
     * The worker's hijack connection for request {@code requestId} arrived (its HELLO read, no WELCOME sent,
     * auto-read off). Event loop of {@code channel}.
     */
    public void arrive(long requestId, Channel channel) {
        Offer offer = meet(requestId, channel, arrived, offers);
        if (offer != null) {
            commit(offer, channel);
            return;
        }
        channel.closeFuture().addListener(f -> {
            synchronized (this) {
                arrived.remove(requestId, channel);
            }
        });
        channel.eventLoop().schedule(() -> {
            boolean stale;
            synchronized (this) {
                stale = arrived.remove(requestId, channel);
            }
            if (stale) {
                refuse(channel, "no hijack of request " + requestId + " was announced");
            }
        }, WAIT_SECONDS, TimeUnit.SECONDS);
    }

    /**
     * Hands {@code channel} to the exchange's protocol. On the channel's loop the frame handlers leave the
     * pipeline (auto-read stays off) and the protocol is called with a {@code welcome} that writes the
     * WELCOME frame as raw bytes: the worker gives the app its IO only after WELCOME, so the protocol sends it
     * once its splice is in place, and nothing the app writes can arrive before that.
     */
    private static void commit(Offer offer, Channel channel) {
        channel.eventLoop().execute(() -> {
            ResponseRecord response = offer.exchange().response;
            if (response.cancelled() || !channel.isActive()) {
                refuse(channel, "the client went away");
                return;
            }
            response.hijack();
            ChannelPipeline pipeline = channel.pipeline();
            while (pipeline.last() != null) {
                pipeline.removeLast();
            }
            Frame frame = new Welcome(offer.version(), offer.link().id).toFrame(channel.alloc());
            ByteBuf welcomeBytes = channel.alloc().buffer(Frame.HEADER_LENGTH + Welcome.LENGTH);
            FrameEncoder.writeFrame(frame, welcomeBytes);
            frame.release();
            AtomicBoolean welcomed = new AtomicBoolean();
            Runnable welcome = () -> {
                if (welcomed.compareAndSet(false, true)) {
                    channel.writeAndFlush(welcomeBytes);
                }
            };
            channel.closeFuture().addListener(f -> {
                if (welcomed.compareAndSet(false, true)) {
                    welcomeBytes.release();
                }
            });
            if (!response.sink().hijack(offer.status(), offer.headers(), channel, welcome)) {
                channel.close();
                if (offer.status() != 0) {
                    response.fail(502, "the protocol does not offer hijacking", false);
                }
            }
        });
    }

    private static void refuse(Channel channel, String reason) {
        Frame goaway = new Goaway(Goaway.CODE_NORMAL, reason).toFrame(channel.alloc());
        channel.writeAndFlush(goaway).addListener(ChannelFutureListener.CLOSE);
    }
}
