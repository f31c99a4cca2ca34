/*
 * The simulator's scenarios as claims: the default policy recovers from a 12× step within a stated bound
 * and beats the one-unit-per-decision baseline in the same simulation; a Ractor bridge cuts the step's
 * queue p99 below fork alone; runs are reproducible; shedding bounds the wait.
 */
package dev.pumaplus.controller.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pumaplus.controller.DecisionLog;
import dev.pumaplus.controller.OneUnitPolicy;
import dev.pumaplus.controller.TieredPolicy;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SimulatorTest {

    private static final double TARGET_MS = 50;
    private static final TieredPolicy TIERED = new TieredPolicy(TieredPolicy.Params.DEFAULTS.withBounds(1, 32,
            TARGET_MS));
    private static final OneUnitPolicy ONE_UNIT = new OneUnitPolicy(TARGET_MS, 1, 32, 3, 10);

    /**
     * The bound: one tick to see the step (1 s), the fork dead time (1 s), and the drain horizon the step
     * was sized for (2 s): by then the added capacity has carried λ and worked off the backlog that built
     * while it booted. 4 s after the step, every following second's queue p99 is under target.
     */
    static final double RECOVERY_BOUND_S = 1 + 1 + 2;

    @Test
    void twelveFoldStepRecoversWithinTickPlusDeadTimePlusDrainHorizonAndBeatsOneUnitPerDecision() {
        for (long seed = 1; seed <= 5; seed++) {
            SimResult tiered = new Simulator(Scenario.step12x(), TIERED, seed, null).run();
            SimResult oneUnit = new Simulator(Scenario.step12x(), ONE_UNIT, seed, null).run();
            double tieredRecovery = tiered.recoverySeconds(20, 60, TARGET_MS);
            double oneUnitRecovery = oneUnit.recoverySeconds(20, 60, TARGET_MS);
            assertTrue(tieredRecovery <= RECOVERY_BOUND_S, "seed " + seed + ": recovered after " + tieredRecovery + " s");
            assertTrue(oneUnitRecovery > 2 * tieredRecovery, "seed " + seed + ": one-unit " + oneUnitRecovery
                    + " s vs tiered " + tieredRecovery + " s");
            double tieredP99 = tiered.queueQuantileMs(0.99, 20, 60);
            double oneUnitP99 = oneUnit.queueQuantileMs(0.99, 20, 60);
            assertTrue(tieredP99 * 2 < oneUnitP99, "step p99 " + tieredP99 + " vs " + oneUnitP99);
            assertEquals(0, tiered.unserved());
            // ... and it gives the capacity back once the load drops: back to the need of 30 rps.
            List<Integer> units = tiered.unitsBySecond();
            assertTrue(units.get(units.size() - 1) <= 3, "units at the end: " + units.get(units.size() - 1));
        }
    }

    /**
     * The bridge covers the fork's dead time, not the tick that detects the step: the queue built in that
     * first second (~12× the capacity for up to 1 s) stays, the one built during the 1 s fork boot goes. So
     * the step's queue p99 about halves (seed 1: 1376.8 ms fork alone, 605.7 ms with a 5 ms Ractor bridge;
     * over seeds 1–5 the ratio is 0.43–0.47), asserted here as under 0.6 of fork alone, with recovery no
     * later, and every bridge slot gone by the end.
     */
    @Test
    void aRactorBridgeCutsTheStepsQueueP99BelowForkAloneAndIsRemovedAfterwards() {
        for (long seed = 1; seed <= 5; seed++) {
            List<String> log = new ArrayList<>();
            SimResult fork = new Simulator(Scenario.step12x(), TIERED, seed, null).run();
            SimResult bridged = new Simulator(Scenario.step12xRactorBridge(), TIERED, seed, log).run();
            double forkP99 = fork.queueQuantileMs(0.99, 20, 60);
            double bridgedP99 = bridged.queueQuantileMs(0.99, 20, 60);
            assertTrue(bridgedP99 < 0.6 * forkP99, "seed " + seed + ": step p99 " + bridgedP99 + " ms bridged vs "
                    + forkP99 + " ms fork alone");
            assertTrue(bridged.recoverySeconds(20, 60, TARGET_MS) <= fork.recoverySeconds(20, 60, TARGET_MS));
            assertEquals(0, bridged.unserved());
            int bridgeSlots = 0;
            int peak = 0;
            for (String line : log) {
                bridgeSlots += DecisionLog.parse(line).decision().bridgeDelta();
                peak = Math.max(peak, bridgeSlots);
            }
            assertTrue(peak > 0, "seed " + seed + ": the bridge was never used");
            assertEquals(0, bridgeSlots, "seed " + seed + ": bridge slots left at the end");
        }
    }

    @Test
    void withFiveThreadWorkersTheStepIsStillSizedInOneDecision() {
        SimResult r = new Simulator(Scenario.step12xThreads5(), TIERED, 7, null).run();
        assertTrue(r.recoverySeconds(20, 60, TARGET_MS) <= RECOVERY_BOUND_S);
        assertTrue(r.adds() <= 3, "additions: " + r.adds());
    }

    @Test
    void theSameSeedGivesTheSameRunAndTheSameDecisionLog() {
        List<String> a = new ArrayList<>();
        List<String> b = new ArrayList<>();
        SimResult ra = new Simulator(Scenario.step12x(), TIERED, 42, a).run();
        SimResult rb = new Simulator(Scenario.step12x(), TIERED, 42, b).run();
        assertEquals(a, b);
        assertArrayEquals(ra.waited(), rb.waited());
        SimResult other = new Simulator(Scenario.step12x(), TIERED, 43, null).run();
        assertTrue(other.waited().length != ra.waited().length || !java.util.Arrays.equals(other.waited(), ra.waited()));
    }

    @Test
    void poissonArrivalsMatchTheOfferedRate() {
        SimResult r = new Simulator(Scenario.step12x(), TIERED, 3, null).run();
        long inStep = java.util.Arrays.stream(r.arrivalAt()).filter(t -> t >= 20 && t < 60).count();
        assertEquals(360 * 40, inStep, 360 * 40 * 0.05);
    }

    @Test
    void sheddingBoundsTheWaitOfEveryServedRequest() {
        SimResult r = new Simulator(Scenario.slotExhaustion(), TIERED.parameters().maxUnits() > 0
                ? new TieredPolicy(TieredPolicy.Params.DEFAULTS.withBounds(1, 1, 50)) : TIERED, 5, null).run();
        assertTrue(r.shed() > 1000, "shed " + r.shed());
        // 10 rps of capacity: the 5 slots stay busy and nothing waits much past the limit plus one slot time.
        assertTrue(r.queueQuantileMs(1.0, 0, 40) <= 2500 + 500 + 1, "max wait " + r.queueQuantileMs(1.0, 0, 40));
        long served = r.waited().length - r.shed();
        assertEquals(10 * 40, served, 10 * 40 * 0.1);
    }

    @Test
    void compareCommandPrintsOneRowPerScenarioAndPolicy() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Compare.print(new PrintStream(out), 1, null);
        String table = out.toString(StandardCharsets.UTF_8);
        assertEquals(1 + 7, table.lines().count(), table);
        assertTrue(table.contains("tiered/1") && table.contains("one-unit/1") && table.contains("static/13"), table);
    }
}
