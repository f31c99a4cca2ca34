/*
 * Claims about the one dead-time measurement every actuator uses: the moving average, additions joining
 * the one being timed, removals lowering its target, and the watcher measuring an addition that completes
 * between two controller ticks at its own length, not at a tick's.
 */
package dev.pumaplus.host.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class DeadTimeTest {

    @Test
    void anAdditionIsTimedUntilTheReadyCountReachesItsTargetReplacingTheDefaultThenAveraged() {
        AtomicLong now = new AtomicLong(1_000);
        DeadTime d = new DeadTime(1_000_000_000, now::get);
        assertTrue(d.added(3), "the first addition starts a timing");
        now.addAndGet(100_000_000);
        assertFalse(d.added(5), "a second addition joins the one being timed");
        d.observe(3);
        assertTrue(d.timing(), "3 of 5 ready: not complete");
        now.addAndGet(100_000_000);
        d.observe(5);
        assertFalse(d.timing());
        assertEquals(200_000_000L, d.nanos(), "the first measurement replaces the default");
        d.added(6);
        now.addAndGet(100_000_000);
        d.observe(6);
        assertEquals((200_000_000L + 100_000_000L) / 2, d.nanos(), "later ones are averaged with it");
    }

    @Test
    void aRemovalWhileTimingLowersTheCountThatCompletesIt() {
        AtomicLong now = new AtomicLong(1_000);
        DeadTime d = new DeadTime(50_000_000, now::get);
        d.added(6);
        d.removed(4);
        now.addAndGet(10_000_000);
        d.observe(4);
        assertFalse(d.timing());
        assertEquals(10_000_000, d.nanos());
    }

    @Test
    void theWatcherMeasuresAnAdditionThatCompletesBetweenTicksAtItsOwnLength() throws InterruptedException {
        DeadTime d = new DeadTime(1_000_000_000, System::nanoTime);
        AtomicInteger ready = new AtomicInteger(1);
        d.added(2);
        d.watch("dead-time-test-watch", ready::get);
        Thread.sleep(40);
        ready.set(2);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (d.timing() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertFalse(d.timing(), "the watcher saw the addition complete");
        long measured = d.nanos();
        assertTrue(measured >= 40_000_000 && measured < 500_000_000,
                "measured " + measured / 1_000_000 + " ms for an addition of ~40 ms");
    }
}
