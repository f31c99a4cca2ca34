/*
 * The host's admission and queue steps wired as the launcher wires them, on a clock the test moves by hand,
 * for tests of the request path from submit to worker link.
 */
package dev.pumaplus.host;

import io.netty.buffer.ByteBufAllocator;
import java.util.concurrent.atomic.AtomicLong;

/** One queue per test; the clock starts at 1 s and moves only through {@link #advance}. */
final class QueueFixture {

    /** A {@link NanoClock} that stands still until a test moves it. */
    static final class ManualClock implements NanoClock {
        private final AtomicLong now = new AtomicLong(1_000_000_000L);

        @Override
        public long nanoTime() {
            return now.get();
        }
    }

    final ManualClock clock = new ManualClock();
    final Dispatcher dispatcher = new Dispatcher(clock);
    final QueueMetrics metrics = dispatcher.metrics();
    final RequestReporting reporting = new RequestReporting(metrics);
    final Admission admission = new Admission(dispatcher, ByteBufAllocator.DEFAULT, reporting);
    final WebSockets webSockets = new WebSockets(admission, metrics);

    /** Moves the clock forward by {@code nanos}. */
    void advance(long nanos) {
        clock.now.addAndGet(nanos);
    }

    /** Closes the workers the test made and answers what is still queued, so leak detection sees only leaks. */
    void releaseAll() {
        EmbeddedWorker.releaseAll(dispatcher);
    }
}
