/*
 * Claims about the host's event loops when there is nothing to do (the loops beneath every step of a
 * request's path): they sleep until I/O, a task or a due timer wakes them, on every transport that runs here.
 */
package dev.pumaplus.host.link;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.EventLoop;
import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.ThreadAwareExecutor;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class WakeOnWorkEventLoopGroupTest {

    /** Counts the loop's passes through its I/O handler: one per wake-up. */
    private static final class CountingHandlers implements IoHandlerFactory {
        final AtomicInteger runs = new AtomicInteger();
        private final IoHandlerFactory delegate;

        CountingHandlers(IoHandlerFactory delegate) {
            this.delegate = delegate;
        }

        @Override
        public IoHandler newHandler(ThreadAwareExecutor executor) {
            IoHandler handler = delegate.newHandler(executor);
            return new IoHandler() {
                @Override
                public void initialize() {
                    handler.initialize();
                }

                @Override
                public int run(IoHandlerContext context) {
                    runs.incrementAndGet();
                    return handler.run(context);
                }

                @Override
                public void prepareToDestroy() {
                    handler.prepareToDestroy();
                }

                @Override
                public void destroy() {
                    handler.destroy();
                }

                @Override
                public IoRegistration register(IoHandle handle) throws Exception {
                    return handler.register(handle);
                }

                @Override
                public void wakeup() {
                    handler.wakeup();
                }

                @Override
                public boolean isCompatible(Class<? extends IoHandle> handleType) {
                    return handler.isCompatible(handleType);
                }
            };
        }
    }

    /** Wake-ups of a started loop left alone for 2.5 s. */
    private static int idleWakeUps(MultiThreadIoEventLoopGroup group, CountingHandlers handlers) throws Exception {
        try {
            group.next().submit(() -> { }).sync();
            Thread.sleep(200);
            int before = handlers.runs.get();
            Thread.sleep(2_500);
            return handlers.runs.get() - before;
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void anIdleLoopSleepsUntilWorkWhereNettysWakesEverySecond() throws Exception {
        for (HostTransport.Kind kind : HostTransport.Kind.values()) {
            if (kind.unavailability() != null) {
                continue;
            }
            CountingHandlers ours = new CountingHandlers(kind.handlers());
            int oursWoke = idleWakeUps(new WakeOnWorkEventLoopGroup(1, ours), ours);
            CountingHandlers netty = new CountingHandlers(kind.handlers());
            int nettyWoke = idleWakeUps(new MultiThreadIoEventLoopGroup(1, netty), netty);
            assertTrue(oursWoke == 0, kind.label + ": an idle loop woke " + oursWoke + " times in 2.5 s");
            assertTrue(nettyWoke >= 2, kind.label + ": Netty's own loop, the comparison, woke " + nettyWoke
                    + " times in 2.5 s (the claim above would prove nothing if it also slept)");
        }
    }

    @Test
    void timersScheduledOnTheLoopOrFromAnotherThreadStillFireOnTime() throws Exception {
        for (HostTransport.Kind kind : HostTransport.Kind.values()) {
            if (kind.unavailability() != null) {
                continue;
            }
            WakeOnWorkEventLoopGroup group = new WakeOnWorkEventLoopGroup(1, kind.handlers());
            try {
                EventLoop loop = group.next();
                loop.submit(() -> { }).sync();
                Thread.sleep(300); // the loop is asleep with no deadline
                CountDownLatch fired = new CountDownLatch(2);
                AtomicLong late = new AtomicLong();
                long start = System.nanoTime();
                loop.schedule(() -> {
                    late.accumulateAndGet(System.nanoTime() - start - 300_000_000L, Math::max);
                    fired.countDown();
                }, 300, TimeUnit.MILLISECONDS);
                loop.execute(() -> loop.schedule(() -> {
                    late.accumulateAndGet(System.nanoTime() - start - 500_000_000L, Math::max);
                    fired.countDown();
                }, 500, TimeUnit.MILLISECONDS));
                assertTrue(fired.await(3, TimeUnit.SECONDS), kind.label + ": a timer did not fire");
                assertTrue(late.get() < 200_000_000L, kind.label + ": a timer fired " + late.get() / 1_000_000 + " ms late");
            } finally {
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            }
        }
    }
}
