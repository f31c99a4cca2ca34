/*
 * The concurrency limiter in the simulator, as claims (docs/CONTROL.md, "The concurrency limit"): against a
 * dependency whose latency rises beyond 20 calls in flight, the limit settles within 10 s between 15 and 30,
 * goodput stays at 90 % of the dependency's capacity or more, and the excess waits in (and is shed from) the
 * host's queue instead of piling into the dependency; against one whose calls contend, it keeps the goodput
 * that running every fiber slot loses; a dependency that loses capacity brings the limit down
 * as fast; a host that boots into the overload probes for the no-load time it never saw; a change of
 * request mix is not taken for inflation, a surge after a quiet stretch does not wait for the limit, and
 * real inflation after a change of mix still brings it down; and the runs' decision logs replay to the
 * same limits.
 */
package dev.pumaplus.controller.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pumaplus.controller.DecisionLog;
import dev.pumaplus.controller.GradientLimitPolicy;
import dev.pumaplus.controller.LimitDecision;
import dev.pumaplus.controller.Replay;
import dev.pumaplus.controller.sim.LimitSimulator.Dependency;
import dev.pumaplus.controller.sim.LimitSimulator.LimitResult;
import dev.pumaplus.controller.sim.LimitSimulator.LimitScenario;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LimitSimulatorTest {

    private static final Dependency KNEE_20 = LimitScenario.KNEE_20;
    private static final GradientLimitPolicy GRADIENT = GradientLimitPolicy.defaults();

    private static LimitScenario twiceTheCapacity() {
        return LimitScenario.twiceTheCapacity();
    }

    @Test
    void atTwiceTheDependencysCapacityTheLimitSettlesWithinTenSecondsBetween15And30AtNinetyPercentGoodput() {
        for (long seed = 1; seed <= 5; seed++) {
            LimitResult r = new LimitSimulator(twiceTheCapacity(), GRADIENT, seed, null).run();
            String run = "seed " + seed + ": limits " + r.limitRange(15, 35)[0] + "-" + r.limitRange(15, 35)[1];
            assertTrue(r.settleSeconds(5, 15, 30) <= 10, run + ", settled after " + r.settleSeconds(5, 15, 30) + " s");
            double goodput = r.goodputRps(15, 35);
            assertTrue(goodput >= 0.9 * KNEE_20.capacityRps(), run + ", goodput " + goodput);
            assertTrue(r.maxInFlight(15, 35) <= 30, run + ", calls in flight " + r.maxInFlight(15, 35));
            // the excess over the dependency's capacity waits in the host's queue and is shed from it
            assertTrue(r.shed(5, 35) > 0.3 * 1000 * 30, run + ", shed " + r.shed(5, 35));
            assertTrue(r.queueQuantileMs(0.99, 15, 35) < 2 * 2500, run + ", queue p99 " + r.queueQuantileMs(0.99, 15, 35));
        }
    }

    @Test
    void withoutTheLimitTheSameLoadPilesEveryFiberSlotIntoTheDependency() {
        LimitResult limited = new LimitSimulator(twiceTheCapacity(), GRADIENT, 1, null).run();
        LimitResult unlimited = new LimitSimulator(twiceTheCapacity(), null, 1, null).run();
        assertEquals(100, unlimited.maxInFlight(15, 35));
        double limitedP99 = limited.slotQuantileMs(0.99, 15, 35);
        double unlimitedP99 = unlimited.slotQuantileMs(0.99, 15, 35);
        assertTrue(unlimitedP99 > 3 * limitedP99, "slot time p99 " + unlimitedP99 + " ms unlimited, " + limitedP99
                + " ms limited");
    }

    @Test
    void againstADependencyWhoseCallsContendTheLimitKeepsGoodputThatEveryFiberRunningWouldLose() {
        for (long seed = 1; seed <= 5; seed++) {
            LimitScenario contended = LimitScenario.twiceTheCapacityContended();
            LimitResult limited = new LimitSimulator(contended, GRADIENT, seed, null).run();
            LimitResult unlimited = new LimitSimulator(contended, null, seed, null).run();
            double capacity = LimitScenario.CONTENDED_KNEE_20.capacityRps();
            String run = "seed " + seed + ": limits " + limited.limitRange(15, 35)[0] + "-"
                    + limited.limitRange(15, 35)[1] + ", goodput " + limited.goodputRps(15, 35) + " against "
                    + unlimited.goodputRps(15, 35) + " unlimited";
            assertTrue(limited.settleSeconds(5, 15, 30) <= 10, run);
            assertTrue(limited.goodputRps(15, 35) >= 0.8 * capacity, run);
            assertTrue(unlimited.goodputRps(15, 35) < 0.3 * capacity, run);
        }
    }

    @Test
    void aDependencyThatLosesCapacityBringsTheLimitDownWithinTenSeconds() {
        // a dependency good for 200 in flight until t = 10 s, then for 20 (another tenant took it)
        LimitScenario lost = LimitScenario.lostCapacity();
        for (long seed = 1; seed <= 5; seed++) {
            LimitResult r = new LimitSimulator(lost, GRADIENT, seed, null).run();
            assertTrue(r.limitRange(5, 10)[1] > 30, "seed " + seed + ": before the loss the limit was above the band");
            assertTrue(r.settleSeconds(10, 15, 30) <= 10, "seed " + seed + ": settled after "
                    + r.settleSeconds(10, 15, 30) + " s");
            assertTrue(r.goodputRps(20, 30) >= 0.9 * KNEE_20.capacityRps(), "seed " + seed + ": goodput "
                    + r.goodputRps(20, 30));
        }
    }

    @Test
    void aHostThatBootsIntoTwiceTheCapacityProbesForItsBaselineAndStillSettlesWithinTenSeconds() {
        LimitScenario flood = LimitScenario.bootIntoTwiceTheCapacity();
        for (long seed = 1; seed <= 5; seed++) {
            List<String> log = new ArrayList<>();
            LimitResult r = new LimitSimulator(flood, GRADIENT, seed, log).run();
            assertTrue(DecisionLog.parseLimit(log.get(0)).decision().reason().startsWith("probe: "), log.get(0));
            assertTrue(r.settleSeconds(0, 15, 30) <= 10, "seed " + seed + ": settled after "
                    + r.settleSeconds(0, 15, 30) + " s");
            assertTrue(r.goodputRps(10, 30) >= 0.9 * KNEE_20.capacityRps(), "seed " + seed + ": goodput "
                    + r.goodputRps(10, 30));
        }
    }

    @Test
    void aFastWarmUpThenAQuietSlowMixLeavesTheLimitWhereItWasAndTheSurgeDoesNotWaitForIt() {
        LimitScenario mix = LimitScenario.fastWarmUpThenSlowMix();
        for (long seed = 1; seed <= 5; seed++) {
            LimitResult r = new LimitSimulator(mix, GRADIENT, seed, null).run();
            String run = "seed " + seed + ": quiet limits " + r.limitRange(4, 16)[0] + "-" + r.limitRange(4, 16)[1];
            assertTrue(r.limitRange(4, 16)[0] >= 30, run);
            assertTrue(r.windowsToReach(16, 30) <= 2, run + ", " + r.windowsToReach(16, 30) + " windows to 30");
            assertTrue(r.queueQuantileMs(0.99, 16, 18) < 50, run + ", surge queue p99 "
                    + r.queueQuantileMs(0.99, 16, 18));
        }
    }

    @Test
    void aSurgeAfterTheDependencyGrewWhileQuietReachesTheConcurrencyItNeedsWithinTwoWindows() {
        LimitScenario grew = LimitScenario.surgeAfterTheKneeGrewWhileQuiet();
        for (long seed = 1; seed <= 5; seed++) {
            LimitResult r = new LimitSimulator(grew, GRADIENT, seed, null).run();
            String run = "seed " + seed + ": quiet limits " + r.limitRange(12, 16)[0] + "-" + r.limitRange(12, 16)[1];
            assertTrue(r.limitRange(12, 16)[1] <= 30, run + ": the overload left the limit near the old knee");
            assertTrue(r.windowsToReach(16, 60) <= 2, run + ", " + r.windowsToReach(16, 60) + " windows to 60");
            assertTrue(r.queueQuantileMs(0.99, 17, 24) < 50, run + ", queue p99 " + r.queueQuantileMs(0.99, 17, 24));
        }
    }

    @Test
    void aDependencyThatTrulyInflatesAfterAFastWarmUpStillBringsTheLimitDownToItsKneeWithinThreeSeconds() {
        LimitScenario real = LimitScenario.fastWarmUpThenTwiceTheCapacity();
        for (long seed = 1; seed <= 5; seed++) {
            LimitResult r = new LimitSimulator(real, GRADIENT, seed, null).run();
            String run = "seed " + seed + ": limits " + r.limitRange(13, 35)[0] + "-" + r.limitRange(13, 35)[1];
            assertTrue(r.settleSeconds(10, 15, 30) <= 3, run + ", settled after " + r.settleSeconds(10, 15, 30) + " s");
            for (int second = 13; second < 35; second++) {
                assertTrue(r.goodputRps(second, second + 1) >= 0.9 * KNEE_20.capacityRps(), run + ", goodput "
                        + r.goodputRps(second, second + 1) + " in second " + second);
            }
            assertTrue(r.maxInFlight(13, 35) <= 30, run + ", calls in flight " + r.maxInFlight(13, 35));
        }
    }

    @Test
    void aSimulatedRunIsReproducibleAndItsDecisionLogReplaysToTheSameLimits() throws Exception {
        List<String> log = new ArrayList<>();
        LimitResult r = new LimitSimulator(twiceTheCapacity(), GRADIENT, 7, log).run();
        assertArrayEquals(r.limits(), new LimitSimulator(twiceTheCapacity(), GRADIENT, 7, null).run().limits());
        assertEquals(r.limits().length, log.size());
        for (int i = 0; i < log.size(); i++) {
            assertEquals(r.limits()[i], DecisionLog.parseLimit(log.get(i)).decision().limit());
        }
        Replay.Result replayed = Replay.replay(new StringReader(String.join("\n", log)), null);
        assertEquals(log.size(), replayed.lines());
        assertEquals(List.of(), replayed.differences());

        String line = log.get(40);
        LimitDecision logged = DecisionLog.parseLimit(line).decision();
        String tampered = line.replace("\"decision\":{\"limit\":" + logged.limit(),
                "\"decision\":{\"limit\":" + (logged.limit() + 1));
        assertFalse(tampered.equals(line));
        Replay.Result differs = Replay.replay(new StringReader(tampered), null);
        assertEquals(1, differs.differences().size());
        assertTrue(differs.differences().get(0).toString().contains("replayed limit " + logged.limit()),
                differs.differences().get(0).toString());
    }
}
