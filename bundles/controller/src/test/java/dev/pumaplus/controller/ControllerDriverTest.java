/*
 * Claims about the live driver's wiring: it finds the primary actuator and the bridge by kind among the
 * registered actuators, applies a decision's units to the one and its bridge slots to the other,
 * skips a tick while a configured actuator is missing, keeps the recent decisions the dashboard lists, and
 * sets the host's hot-queue watch, whose alarms it decides between ticks.
 */
package dev.pumaplus.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pumaplus.spi.Actuator;
import dev.pumaplus.spi.Autoscaler.TickDecision;
import dev.pumaplus.spi.LoadSignals;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class ControllerDriverTest {

    /** A 12× step as the host reports it: 360 rps at one 25 ms slot, 300 waiting, W_pred 7.5 s. */
    private static final LoadSignals STEP = () -> new LoadSignals.Sample(360, 400_000_000, 450_000_000, 25e6, 300, 1,
            1, 7.5e9, 0.5, 8L << 30, 0);

    /** A tick so long that only a test's own {@link ControllerDriver#tick()} calls run, ms. */
    private static final long HOUR_MS = 3_600_000;

    /**
     * An actuator's side, recorded: the units added. {@link #fork()} is the primary (one-slot units, 1 s dead
     * time, all ready); {@link #bridge} one of the host's extra-slot actuators before any slot dialled in (one
     * slot a unit, 50 ms dead time, none ready; a thread shares its GVL and its gain is unknown by itself).
     */
    static final class RecordingActuator implements Actuator {
        final List<Integer> added = new ArrayList<>();
        final String kind;
        final int ready;
        final long deadTimeNanos;
        int units;

        private RecordingActuator(String kind, int units, int ready, long deadTimeNanos) {
            this.kind = kind;
            this.units = units;
            this.ready = ready;
            this.deadTimeNanos = deadTimeNanos;
        }

        static RecordingActuator fork() {
            return new RecordingActuator("fork", 1, 1, 1_000_000_000L);
        }

        static RecordingActuator bridge(String kind) {
            return new RecordingActuator(kind, 0, 0, 50_000_000);
        }

        @Override
        public String kind() {
            return kind;
        }

        @Override
        public int slotsPerUnit() {
            return 1;
        }

        @Override
        public long deadTimeNanos() {
            return deadTimeNanos;
        }

        @Override
        public int units() {
            return units;
        }

        @Override
        public int readyUnits() {
            return ready;
        }

        @Override
        public long memoryPerUnitBytes() {
            return -1;
        }

        @Override
        public boolean gainKnown() {
            return !kind.equals("thread");
        }

        @Override
        public boolean sharesGvl() {
            return kind.equals("thread");
        }

        @Override
        public void add(int count) {
            added.add(count);
            units += count;
        }

        @Override
        public void remove(int count) {
            units -= count;
        }
    }

    @Test
    void theUnitsGoToThePrimaryAndTheBridgeSlotsToTheBridgeOfTheConfiguredKind(@TempDir Path dir) throws Exception {
        RecordingActuator fork = RecordingActuator.fork();
        RecordingActuator ractor = RecordingActuator.bridge("ractor");
        RecordingActuator thread = RecordingActuator.bridge("thread");
        Map<String, Actuator> registered = new HashMap<>();
        registered.put("fork", fork);
        registered.put("ractor", ractor);
        registered.put("thread", thread);
        Path log = dir.resolve("decisions.jsonl");
        ControllerDriver driver = new ControllerDriver(TieredPolicy.defaults(), STEP, registered::get, "fork",
                "ractor", log, HOUR_MS);
        driver.start();
        try {
            driver.tick();
        } finally {
            driver.stop();
        }
        assertEquals(List.of(7), fork.added, driver.lastDecision()); // max 8 units
        assertEquals(List.of(7), ractor.added, "one Ractor slot per forked slot on its way");
        assertEquals(List.of(), thread.added, "the actuator of another kind is left alone");
        String line = Files.readAllLines(log).get(0);
        assertTrue(line.contains("\"bridgeDelta\":7"), line);
    }

    @Test
    void aConcurrencyLimitThatBindsBelowTheSlotsReachesThePolicyWhichAddsNoWorker(@TempDir Path dir) throws Exception {
        RecordingActuator fork = RecordingActuator.fork();
        // the step on 50 fiber slots of which the limiter lets 24 run
        LoadSignals limited = () -> new LoadSignals.Sample(2000, 900_000_000, 950_000_000, 24e6, 2400, 24, 50,
                2.4e9, 0.5, 8L << 30, 0, Double.NaN, 24);
        Path log = dir.resolve("decisions.jsonl");
        ControllerDriver driver = new ControllerDriver(TieredPolicy.defaults(), limited, Map.<String, Actuator>of(
                "fork", fork)::get, "fork", null, log, HOUR_MS);
        driver.start();
        try {
            driver.tick();
        } finally {
            driver.stop();
        }
        assertEquals(List.of(), fork.added, driver.lastDecision());
        DecisionLog.Entry e = DecisionLog.parse(Files.readAllLines(log).get(0));
        assertEquals(24, e.observation().concurrencyLimit());
        assertTrue(e.decision().reason().contains("the concurrency limit binds"), e.decision().reason());
    }

    /** {@link #STEP} with the workers' GVL wait at {@code ratio} of service time (NaN: not measured). */
    private static LoadSignals stepWithGvlWait(double ratio) {
        return () -> new LoadSignals.Sample(360, 400_000_000, 450_000_000, 25e6, 300, 1, 1, 7.5e9, 0.5, 8L << 30, 0,
                ratio);
    }

    /** The first decision log line of one tick with a thread bridge under {@code signals}. */
    private static String threadBridgeTick(Path dir, LoadSignals signals, RecordingActuator thread) throws Exception {
        Map<String, Actuator> registered = Map.of("fork", RecordingActuator.fork(), "thread", thread);
        Path log = dir.resolve("decisions.jsonl");
        ControllerDriver driver = new ControllerDriver(TieredPolicy.defaults(), signals, registered::get, "fork",
                "thread", log, HOUR_MS);
        driver.start();
        try {
            driver.tick();
        } finally {
            driver.stop();
        }
        return Files.readAllLines(log).get(0);
    }

    @Test
    void aThreadBridgesGainIsKnownOnceTheWorkersMeasureGvlWaitAndItsSlotsAreAddedWhileTheGvlIsFree(
            @TempDir Path dir) throws Exception {
        RecordingActuator thread = RecordingActuator.bridge("thread");
        String line = threadBridgeTick(dir, stepWithGvlWait(0.01), thread);
        assertEquals(List.of(7), thread.added, line);
        assertTrue(line.contains("\"gvlWaitRatio\":0.01"), line);
        assertTrue(line.contains("\"bridgeGainKnown\":true") && line.contains("\"bridgeSharesGvl\":true"), line);
    }

    @Test
    void aThreadBridgeAddsNothingWhenTheGvlIsTheBottleneck(@TempDir Path dir) throws Exception {
        RecordingActuator thread = RecordingActuator.bridge("thread");
        String line = threadBridgeTick(dir, stepWithGvlWait(0.5), thread);
        assertEquals(List.of(), thread.added, line);
        assertTrue(line.contains("bridge: none, the GVL is the bottleneck"), line);
    }

    @Test
    void withoutAGvlWaitMeasurementAThreadBridgesGainStaysUnknown(@TempDir Path dir) throws Exception {
        RecordingActuator thread = RecordingActuator.bridge("thread");
        String line = threadBridgeTick(dir, stepWithGvlWait(Double.NaN), thread);
        assertEquals(List.of(), thread.added, line);
        assertTrue(line.contains("\"gvlWaitRatio\":null") && line.contains("\"bridgeGainKnown\":false"), line);
        assertTrue(line.contains("bridge: none, the gain of a bridge slot is unknown"), line);
    }

    @Test
    void theInjectedTickPacesTheTicksAndEveryObservationCarriesIt(@TempDir Path dir) throws Exception {
        CountDownLatch sampled = new CountDownLatch(3); // the baseline at start, then two ticks
        LoadSignals counted = () -> {
            sampled.countDown();
            return STEP.sample();
        };
        Path log = dir.resolve("decisions.jsonl");
        ControllerDriver driver = new ControllerDriver(TieredPolicy.defaults(), counted, Map.<String, Actuator>of(
                "fork", RecordingActuator.fork())::get, "fork", null, log, 20);
        driver.start();
        try {
            assertTrue(sampled.await(5, TimeUnit.SECONDS), "two ticks of 20 ms did not run within 5 s");
        } finally {
            driver.stop();
        }
        List<String> lines = Files.readAllLines(log);
        assertTrue(lines.size() >= 2, lines.toString());
        for (String line : lines) {
            assertEquals(20, DecisionLog.parse(line).observation().tickMs(), line);
        }
    }

    @Test
    void aTickWaitsForAConfiguredBridgeThatIsNotRegisteredYet() throws Exception {
        RecordingActuator fork = RecordingActuator.fork();
        ControllerDriver driver = new ControllerDriver(TieredPolicy.defaults(), STEP, Map.<String, Actuator>of(
                "fork", fork)::get, "fork", "ractor", null, HOUR_MS);
        driver.tick();
        assertEquals(0, driver.ticks());
        assertEquals(List.of(), fork.added);
    }

    @Test
    void theKeptDecisionsMatchTheLogLinesAndTheOldestRollOffPastTheLimit(@TempDir Path dir) throws Exception {
        RecordingActuator fork = RecordingActuator.fork();
        Path log = dir.resolve("decisions.jsonl");
        ControllerDriver driver = new ControllerDriver(TieredPolicy.defaults(), STEP, Map.<String, Actuator>of(
                "fork", fork)::get, "fork", null, log, HOUR_MS);
        driver.start();
        try {
            for (int i = 0; i < ControllerDriver.KEPT_DECISIONS + 5; i++) {
                driver.tick();
            }
        } finally {
            driver.stop();
        }
        List<TickDecision> kept = driver.decisionsAfter(-1);
        assertEquals(ControllerDriver.KEPT_DECISIONS, kept.size());
        assertEquals(5, kept.get(0).tick(), "the five oldest rolled off");
        assertEquals(ControllerDriver.KEPT_DECISIONS + 4, kept.get(kept.size() - 1).tick());
        List<String> lines = Files.readAllLines(log);
        TickDecision first = kept.get(0);
        DecisionLog.Entry logged = DecisionLog.parse(lines.get(5));
        assertEquals(logged.decision().reason(), first.reason());
        assertEquals(logged.decision().action(), first.action());
        assertEquals(logged.decision().tier(), first.tier());
        assertEquals(logged.observation().units(), first.units());
        assertEquals(logged.policyId(), first.policyId());
        assertEquals(java.time.Instant.parse(logged.at()).toEpochMilli(), first.epochMillis());
        assertEquals(List.of(kept.get(kept.size() - 1)), driver.decisionsAfter(kept.get(kept.size() - 2).tick()),
                "only the ticks after the one asked for");
    }

    /**
     * The host early in a step, between ticks: the last second was calm (20 rps, p95 5 ms), but 25 requests
     * wait behind the one busy slot, the oldest for 70 ms; records the watch it is asked for.
     */
    static final class HotQueue implements LoadSignals {
        long thresholdNanos = -1;
        ScheduledExecutorService timer;
        Runnable onHot;
        boolean everWatched;

        @Override
        public Sample sample() {
            return new Sample(20, 5_000_000, 5_000_000, 25e6, 25, 1, 1, 650e6, 0.5, 8L << 30, 0);
        }

        @Override
        public void watchHotQueue(long thresholdNanos, ScheduledExecutorService timer, Runnable onHot) {
            this.thresholdNanos = thresholdNanos;
            this.timer = timer;
            this.onHot = onHot;
            everWatched |= onHot != null;
        }

        @Override
        public long oldestWaitNanos() {
            return 70_000_000;
        }
    }

    @Test
    void theDriverWatchesTheQueueAtThePolicysThresholdAndItsAlarmsRunOnTheTickersThread() throws Exception {
        HotQueue host = new HotQueue();
        RecordingActuator fork = RecordingActuator.fork();
        ControllerDriver driver = new ControllerDriver(TieredPolicy.defaults(), host, Map.<String, Actuator>of(
                "fork", fork)::get, "fork", null, null, HOUR_MS);
        driver.start();
        try {
            assertEquals(50_000_000, host.thresholdNanos, "the target queue p95, 50 ms");
            host.timer.submit(host.onHot).get(5, TimeUnit.SECONDS); // as the host's check calls it
            assertEquals(List.of(7), fork.added, driver.lastDecision()); // the step's 18, bounded by max 8
            assertEquals(1, driver.alarms());
            assertEquals(0, driver.ticks(), "an alarm is not a tick");
        } finally {
            driver.stop();
        }
        assertEquals(null, host.onHot, "stop clears the watch");
    }

    @Test
    void aPolicyThatDecidesAtTicksOnlyGetsNoWatch() throws Exception {
        HotQueue host = new HotQueue();
        ControllerDriver driver = new ControllerDriver(new OneUnitPolicy(50, 1, 8, 3, 10), host,
                Map.<String, Actuator>of("fork", RecordingActuator.fork())::get, "fork", null, null, HOUR_MS);
        driver.start();
        driver.stop();
        assertTrue(!host.everWatched, "the watch is only cleared, never set");
    }

    @Test
    void anAlarmThatAddsIsLoggedAsAnAlarmAndKeptBeforeTheTickItIsNumberedWithOneThatDoesNotLeavesNoTrace(
            @TempDir Path dir) throws Exception {
        RecordingActuator fork = RecordingActuator.fork();
        Path log = dir.resolve("decisions.jsonl");
        ControllerDriver driver = new ControllerDriver(TieredPolicy.defaults(), new HotQueue(),
                Map.<String, Actuator>of("fork", fork)::get, "fork", null, log, HOUR_MS);
        driver.start();
        try {
            driver.alarm();
            driver.alarm(); // at max: changes nothing
            assertEquals(List.of(), driver.decisionsAfter(-1), "kept with the tick it is numbered with");
            driver.tick();
        } finally {
            driver.stop();
        }
        assertEquals(List.of(7), fork.added);
        assertEquals(1, driver.alarms());
        List<String> lines = Files.readAllLines(log);
        assertEquals(2, lines.size(), lines.toString());
        DecisionLog.Entry alarm = DecisionLog.parse(lines.get(0));
        assertTrue(alarm.observation().alarm(), lines.get(0));
        assertEquals(70, alarm.observation().oldestWaitMs());
        assertEquals(0, alarm.observation().tick(), "numbered as the tick to come");
        assertEquals(7, alarm.decision().delta());
        DecisionLog.Entry tick = DecisionLog.parse(lines.get(1));
        assertTrue(!tick.observation().alarm() && tick.decision().reason().contains("settled gate, 7 units booting"),
                lines.get(1));
        assertEquals(alarm.decision().next(), tick.state(), "the tick starts from the alarm's state");
        List<TickDecision> kept = driver.decisionsAfter(-1);
        assertEquals(List.of("add", "none"), kept.stream().map(TickDecision::action).toList());
        assertTrue(kept.get(0).reason().startsWith("alarm: "), kept.get(0).reason());
        assertEquals(List.of(0L, 0L), kept.stream().map(TickDecision::tick).toList());
    }
}
