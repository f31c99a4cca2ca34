/*
 * The connection bound of a listener (the accept step): at the bound the listening channel stops reading
 * (accepting), connections accepted past it in one burst wait unserved, and each close lets one in.
 */
package dev.pumaplus.protocol.h1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class AcceptLimitTest {

    /** What the acceptor after the limit receives: the connections it serves. */
    private final List<Channel> served = new ArrayList<>();
    private final EmbeddedChannel listener = new EmbeddedChannel(new AcceptLimit(2), new ChannelInboundHandlerAdapter() {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            served.add((Channel) msg);
        }
    });

    private EmbeddedChannel accept() {
        EmbeddedChannel connection = new EmbeddedChannel();
        listener.writeInbound(connection);
        listener.runPendingTasks();
        return connection;
    }

    private void close(EmbeddedChannel connection) {
        connection.close();
        listener.runPendingTasks();
    }

    @Test
    void listenerStopsAcceptingAtTheBoundAndAcceptsAgainWhenAConnectionCloses() {
        EmbeddedChannel first = accept();
        assertTrue(listener.config().isAutoRead());
        accept();
        assertFalse(listener.config().isAutoRead(), "at the bound the listener no longer accepts");
        assertEquals(2, served.size());
        close(first);
        assertTrue(listener.config().isAutoRead(), "below the bound again");
    }

    @Test
    void connectionsAcceptedPastTheBoundInOneBurstWaitUnservedAndAreServedInOrderAsOthersClose() {
        EmbeddedChannel first = accept();
        EmbeddedChannel second = accept();
        EmbeddedChannel third = accept(); // the same burst as the second: auto-read was checked too late
        EmbeddedChannel fourth = accept();
        assertEquals(List.of(first, second), served);
        close(first);
        assertEquals(List.of(first, second, third), served);
        assertFalse(listener.config().isAutoRead(), "still one waiting: two served and one more accepted");
        close(second);
        assertEquals(List.of(first, second, third, fourth), served);
        assertFalse(listener.config().isAutoRead());
        close(third);
        assertTrue(listener.config().isAutoRead());
    }

    @Test
    void connectionsWaitingWhenTheListenerClosesAreClosed() {
        accept();
        accept();
        EmbeddedChannel waiting = accept();
        listener.close();
        assertFalse(waiting.isOpen());
    }
}
