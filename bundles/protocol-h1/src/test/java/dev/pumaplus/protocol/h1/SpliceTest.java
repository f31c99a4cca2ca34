/*
 * Backpressure of a hijacked connection's byte pipe (Splice): a side stops reading while its peer is full and
 * reads again once the peer drained, also when the drain lands between the check and the stop.
 */
package dev.pumaplus.protocol.h1;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class SpliceTest {

    /** A peer whose writability answers are scripted: {@code full} looks, then writable. */
    private static EmbeddedChannel peerFullFor(int full) {
        AtomicInteger looks = new AtomicInteger();
        return new EmbeddedChannel() {
            @Override
            public boolean isWritable() {
                return looks.getAndIncrement() >= full;
            }
        };
    }

    private static void send(EmbeddedChannel side, EmbeddedChannel peer) {
        side.writeInbound(Unpooled.wrappedBuffer(new byte[] {1, 2, 3}));
        ((ByteBuf) peer.readOutbound()).release();
    }

    @Test
    void aSideStopsReadingWhileItsPeerStaysFull() {
        EmbeddedChannel peer = peerFullFor(Integer.MAX_VALUE);
        EmbeddedChannel side = new EmbeddedChannel(new Splice(peer));
        send(side, peer);
        assertFalse(side.config().isAutoRead());
    }

    @Test
    void aPeerThatDrainsBetweenTheCheckAndTheStopLeavesTheSideReading() {
        // The peer is full when the side looks, and writable again by the time the side has stopped reading: its
        // writability change ran in between, on its own event loop, and found reading still on.
        EmbeddedChannel peer = peerFullFor(1);
        EmbeddedChannel side = new EmbeddedChannel(new Splice(peer));
        send(side, peer);
        assertTrue(side.config().isAutoRead(), "a side whose peer drained must not stay stopped");
    }
}
