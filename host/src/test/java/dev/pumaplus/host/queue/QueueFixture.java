/*
 * The host's admission and queue steps wired as the launcher wires them, on a clock the test moves by hand,
 * for tests of the request path from submit to worker link.
 */
package dev.pumaplus.host.queue;

import dev.pumaplus.host.measure.NanoClock;
import dev.pumaplus.host.measure.QueueMetrics;
import io.netty.buffer.ByteBufAllocator;
import java.util.concurrent.atomic.AtomicLong;

/** One queue per test; the clock starts at 1 s and moves only through {@link #advance}. */
public final class QueueFixture {

    /** A {@link NanoClock} that stands still until a test moves it. */
    public static final class ManualClock implements NanoClock {
        private final AtomicLong now = new AtomicLong(1_000_000_000L);

        @Override
        public long nanoTime() {
            return now.get();
        }
    }

    public final ManualClock clock = new ManualClock();
    public final Dispatcher dispatcher = new Dispatcher(clock);
    final QueueMetrics metrics = dispatcher.metrics();
    public final RequestReporting reporting = new RequestReporting(metrics);
    public final Admission admission = new Admission(dispatcher, ByteBufAllocator.DEFAULT, reporting);
    public final WebSockets webSockets = new WebSockets(admission, metrics);

    /** Moves the clock forward by {@code nanos}. */
    public void advance(long nanos) {
        clock.now.addAndGet(nanos);
    }

    /** Closes the workers the test made and answers what is still queued, so leak detection sees only leaks. */
    public void releaseAll() {
        EmbeddedWorker.releaseAll(dispatcher);
    }

    /** The request id admission gave {@code ex} (an exchange this fixture's admission returned). */
    public static long requestId(dev.pumaplus.spi.Exchange ex) {
        return ((QueuedExchange) ex).requestId;
    }

    /** Waits until the event loop of the link {@code ex} was dispatched to has run every task before now. */
    public static void awaitLinkLoop(dev.pumaplus.spi.Exchange ex) throws Exception {
        ((QueuedExchange) ex).ticket.link().channel.eventLoop().submit(() -> { })
                .get(5, java.util.concurrent.TimeUnit.SECONDS);
    }
}
