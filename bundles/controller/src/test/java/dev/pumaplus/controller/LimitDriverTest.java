/*
 * Claims about the live concurrency limiter's driver: it times each window with its injected clock, sets
 * the limit the policy decides on the host's ConcurrencyLimit service, logs a line only for a window that
 * changed something (which replays to the same limit), not for the nudges a quiet stretch gives the
 * baseline, and rests while no limit is in force.
 */
package dev.pumaplus.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pumaplus.spi.ConcurrencyLimit;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class LimitDriverTest {

    /** The host's service, scripted: the windows it hands out in order, and the limits set on it. */
    private static final class ScriptedLimit implements ConcurrencyLimit {
        final ArrayDeque<Window> windows = new ArrayDeque<>();
        final List<Integer> set = new ArrayList<>();
        int limit = 100;

        @Override
        public Window window() {
            Window w = windows.poll();
            return w == null ? null : new Window(w.completed(), w.slotNanos(), w.threadWaitNanos(), w.peakInFlight(),
                    w.depth(), w.liveSlots(), limit);
        }

        @Override
        public boolean set(int limit) {
            set.add(limit);
            this.limit = limit;
            return true;
        }
    }

    /** {@code n} requests of {@code ms} each, {@code peak} at once, on 100 slots. */
    private static ConcurrencyLimit.Window window(long n, double ms, int peak) {
        return new ConcurrencyLimit.Window(n, (long) (n * ms * 1e6), 0, peak, 50, 100, 0);
    }

    @Test
    void aWindowSetsTheDecidedLimitAndLogsOnlyWhenSomethingChanged(@TempDir Path dir) throws Exception {
        ScriptedLimit host = new ScriptedLimit();
        long[] now = {0};
        Path log = dir.resolve("decisions.jsonl");
        LimitDriver driver = new LimitDriver(GradientLimitPolicy.defaults(), host, () -> now[0], log);
        driver.open();
        host.windows.add(window(200, 10, 5)); // light: the baseline, every slot may still run
        host.windows.add(window(200, 10, 5)); // the same again: nothing changes
        host.windows.add(window(200, 40, 100)); // at every slot, inflated fourfold: the limit shrinks
        for (int i = 0; i < 3; i++) {
            now[0] += 250_000_000L;
            driver.window();
        }
        driver.stop();
        assertEquals(List.of(100, 100, 92), host.set, "from the limit in force, every slot, until it inflated");
        List<String> lines = Files.readAllLines(log);
        assertEquals(2, lines.size(), "the first window (a new baseline) and the shrink; not the unchanged one");
        DecisionLog.LimitEntry shrink = DecisionLog.parseLimit(lines.get(1));
        assertEquals(250.0, shrink.observation().windowMs());
        assertEquals(40.0, shrink.observation().meanServiceMs(), 1e-9);
        assertEquals(92, shrink.decision().limit());
        Replay.Result replayed = Replay.replay(new StringReader(String.join("\n", lines)), null);
        assertEquals(List.of(), replayed.differences());
    }

    @Test
    void aQuietStretchOfLightWindowsLogsOnlyTheBaselineItMeasuredAgain(@TempDir Path dir) throws Exception {
        ScriptedLimit host = new ScriptedLimit();
        Path log = dir.resolve("decisions.jsonl");
        LimitDriver driver = new LimitDriver(GradientLimitPolicy.defaults(), host, () -> 0L, log);
        driver.open();
        host.windows.add(window(200, 0.1, 5)); // a cheap route: the baseline is learned
        host.windows.add(window(40, 10, 3)); // a slow one, 3 at once: the stale baseline is measured again
        for (double ms : new double[] {10.4, 9.7, 10.2, 9.9, 10.6, 9.8, 10.1, 10.3}) {
            host.windows.add(window(40, ms, 3)); // each nudges it, by less than a tenth
        }
        for (int i = 0; i < 10; i++) {
            driver.window();
        }
        driver.stop();
        List<String> lines = Files.readAllLines(log);
        assertEquals(2, lines.size(), String.join("\n", lines));
        assertEquals(10.0, DecisionLog.parseLimit(lines.get(1)).decision().next().baselineMs(), 1e-9);
        assertEquals(List.of(), Replay.replay(new StringReader(String.join("\n", lines)), null).differences());
        assertEquals(10.0, driver.state().baselineMs(), 0.5);
    }

    @Test
    void replayRefusesAGradient1LineNamingTheStateFieldItLacks() {
        String old = "{\"kind\":\"limit\",\"window\":42,\"policy\":\"gradient/1\",\"params\":{},"
                + "\"obs\":{\"window\":42,\"windowMs\":250.1,\"completed\":248,\"meanServiceMs\":40.2,"
                + "\"peakInFlight\":50,\"depth\":310,\"slots\":50,\"limit\":50},"
                + "\"state\":{\"limit\":50.0,\"baselineMs\":20.1,\"unconfirmedWindows\":0,\"measuring\":false,"
                + "\"pendingCompleted\":0,\"pendingSlotMs\":0.0,\"pendingPeak\":0},"
                + "\"decision\":{\"limit\":46,\"reason\":\"…\"},"
                + "\"next\":{\"limit\":46.414,\"baselineMs\":20.1,\"unconfirmedWindows\":1,\"measuring\":false,"
                + "\"pendingCompleted\":0,\"pendingSlotMs\":0.0,\"pendingPeak\":0}}";
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> Replay.replay(new StringReader(old), null));
        assertTrue(refused.getMessage().contains("line 1: LimitState lacks \"probeWindowsLeft\""),
                refused.getMessage());
    }

    @Test
    void withoutALimitInForceTheDriverSetsNothingAndStartsAfreshWhenOneReturns() throws Exception {
        ScriptedLimit host = new ScriptedLimit();
        long[] now = {0};
        LimitDriver driver = new LimitDriver(GradientLimitPolicy.defaults(), host, () -> now[0], null);
        host.windows.add(window(200, 10, 5));
        driver.window();
        assertEquals(10.0, driver.state().baselineMs());
        driver.window(); // no window: the generation runs threads now
        assertEquals(List.of(100), host.set);
        assertEquals(LimitState.initial(), driver.state());
    }
}
