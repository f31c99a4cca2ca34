/*
 * Claims about the live driver's wiring: it finds the primary actuator and the bridge by kind among the
 * registered actuators, applies a decision's units to the one and its bridge slots to the other,
 * skips a tick while a configured actuator is missing, and keeps the recent decisions the dashboard lists.
 */
package dev.pumaplus.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pumaplus.spi.Actuator;
import dev.pumaplus.spi.Autoscaler.TickDecision;
import dev.pumaplus.spi.ExtraSlotActuator;
import dev.pumaplus.spi.LoadSignals;
import dev.pumaplus.spi.WorkerPool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
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

    /** The primary actuator's side, recorded: one-slot units, 1 s dead time, all ready. */
    static final class RecordingFork implements Actuator {
        final List<Integer> added = new ArrayList<>();
        int units = 1;

        @Override
        public String kind() {
            return "fork";
        }

        @Override
        public int slotsPerUnit() {
            return 1;
        }

        @Override
        public long deadTimeNanos() {
            return 1_000_000_000L;
        }

        @Override
        public int units() {
            return units;
        }

        @Override
        public int readyUnits() {
            return 1;
        }

        @Override
        public long memoryPerUnitBytes() {
            return -1;
        }

        @Override
        public boolean gainKnown() {
            return true;
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

    /** The host's WorkerPool for the real extra-slot actuators, recorded: the counts asked for. */
    static final class RecordingPool implements WorkerPool {
        final List<Integer> extra = new ArrayList<>();

        @Override
        public int threadsPerWorker() {
            return 1;
        }

        @Override
        public int initialWorkers() {
            return 1;
        }

        @Override
        public void desiredWorkers(int count) {
        }

        @Override
        public List<Long> readyWorkerPids() {
            return List.of();
        }

        @Override
        public void desiredExtraSlots(int count) {
            extra.add(count);
        }

        @Override
        public int readyExtraSlots() {
            return 0;
        }
    }

    @Test
    void theUnitsGoToThePrimaryAndTheBridgeSlotsToTheBridgeOfTheConfiguredKind(@TempDir Path dir) throws Exception {
        RecordingFork fork = new RecordingFork();
        RecordingPool ractorPool = new RecordingPool();
        RecordingPool threadPool = new RecordingPool();
        Map<String, Actuator> registered = new HashMap<>();
        registered.put("fork", fork);
        registered.put("ractor", ExtraSlotActuator.ractors(ractorPool));
        registered.put("thread", ExtraSlotActuator.threads(threadPool));
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
        assertEquals(List.of(7), ractorPool.extra, "one Ractor slot per forked slot on its way");
        assertEquals(List.of(), threadPool.extra, "the actuator of another kind is left alone");
        String line = Files.readAllLines(log).get(0);
        assertTrue(line.contains("\"bridgeDelta\":7"), line);
    }

    /** {@link #STEP} with the workers' GVL wait at {@code ratio} of service time (NaN: not measured). */
    private static LoadSignals stepWithGvlWait(double ratio) {
        return () -> new LoadSignals.Sample(360, 400_000_000, 450_000_000, 25e6, 300, 1, 1, 7.5e9, 0.5, 8L << 30, 0,
                ratio);
    }

    /** The first decision log line of one tick with a thread bridge under {@code signals}. */
    private static String threadBridgeTick(Path dir, LoadSignals signals, RecordingPool threadPool) throws Exception {
        Map<String, Actuator> registered = Map.of("fork", new RecordingFork(), "thread",
                ExtraSlotActuator.threads(threadPool));
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
        RecordingPool threadPool = new RecordingPool();
        String line = threadBridgeTick(dir, stepWithGvlWait(0.01), threadPool);
        assertEquals(List.of(7), threadPool.extra, line);
        assertTrue(line.contains("\"gvlWaitRatio\":0.01"), line);
        assertTrue(line.contains("\"bridgeGainKnown\":true") && line.contains("\"bridgeSharesGvl\":true"), line);
    }

    @Test
    void aThreadBridgeAddsNothingWhenTheGvlIsTheBottleneck(@TempDir Path dir) throws Exception {
        RecordingPool threadPool = new RecordingPool();
        String line = threadBridgeTick(dir, stepWithGvlWait(0.5), threadPool);
        assertEquals(List.of(), threadPool.extra, line);
        assertTrue(line.contains("bridge: none, the GVL is the bottleneck"), line);
    }

    @Test
    void withoutAGvlWaitMeasurementAThreadBridgesGainStaysUnknown(@TempDir Path dir) throws Exception {
        RecordingPool threadPool = new RecordingPool();
        String line = threadBridgeTick(dir, stepWithGvlWait(Double.NaN), threadPool);
        assertEquals(List.of(), threadPool.extra, line);
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
                "fork", new RecordingFork())::get, "fork", null, log, 20);
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
        RecordingFork fork = new RecordingFork();
        ControllerDriver driver = new ControllerDriver(TieredPolicy.defaults(), STEP, Map.<String, Actuator>of(
                "fork", fork)::get, "fork", "ractor", null, HOUR_MS);
        driver.tick();
        assertEquals(0, driver.ticks());
        assertEquals(List.of(), fork.added);
    }

    @Test
    void theKeptDecisionsMatchTheLogLinesAndTheOldestRollOffPastTheLimit(@TempDir Path dir) throws Exception {
        RecordingFork fork = new RecordingFork();
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
}
