/*
 * Claims about the default concurrency limiter (docs/CONTROL.md, "The concurrency limit"), each on
 * hand-built windows: it grows while service time stays at its no-load minimum, shrinks as it inflates,
 * stays within [1, slots], holds still on thin or app-limited windows, and probes for a baseline it has
 * not seen or that has gone stale.
 */
package dev.pumaplus.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class GradientLimitPolicyTest {

    private final GradientLimitPolicy policy = GradientLimitPolicy.defaults();

    /**
     * A window of 200 requests of {@code serviceMs} on {@code slots} slots with the limit bound (as many
     * running as it allows); before the first window the limit in force is 20.
     */
    private static LimitObservation window(long n, double serviceMs, LimitState state, int slots) {
        int limit = Double.isNaN(state.limit()) ? 20 : (int) state.limit();
        return new LimitObservation(n, 250, 200, serviceMs, limit, 50, slots, limit);
    }

    @Test
    void growsByTheSquareRootOfTheLimitWhileServiceTimeStaysAtItsNoLoadMinimum() {
        LimitState state = new LimitState(20, 10, 0, false);
        LimitDecision d = policy.decide(state, window(1, 10, state, 100));
        assertEquals(20 + Math.sqrt(20), d.next().limit(), 1e-9);
        assertEquals(24, d.limit());
        assertTrue(d.reason().contains("gradient 1, limit 20 → 24"), d.reason());
        state = d.next();
        for (int n = 2; n < 40; n++) {
            state = policy.decide(state, window(n, 10, state, 100)).next();
        }
        assertEquals(100, state.limit(), "grows to every slot and no further");
    }

    @Test
    void shrinksWhenServiceTimeInflatesByAtMostHalfTheSmoothingPerWindow() {
        LimitState state = new LimitState(100, 10, 0, false);
        LimitDecision d = policy.decide(state, window(1, 50, state, 100));
        // gradient 10/50 = 0.2 is floored at 0.5: target 100·0.5 + 10 = 60, smoothed: 100 − 0.2·40 = 92
        assertEquals(92, d.next().limit(), 1e-9);
        assertEquals(92, d.limit());
        LimitDecision mild = policy.decide(state, window(1, 12.5, state, 100));
        // gradient 0.8: target 80 + 10 = 90, smoothed: 100 − 0.2·10 = 98
        assertEquals(98, mild.next().limit(), 1e-9);
    }

    @Test
    void settlesNearKneePlusItsSquareRootAgainstADependencyThatSlowsInProportionBeyondTheKnee() {
        LimitState state = new LimitState(100, 10, 0, false);
        for (int n = 0; n < 200; n++) {
            double service = 10 * Math.max(1, state.limit() / 20); // S = S₀·c/K beyond K = 20
            state = policy.decide(state, window(n, service, state, 100)).next();
        }
        assertTrue(state.limit() > 22 && state.limit() < 27, "limit " + state.limit());
    }

    @Test
    void neverLeavesOneToTheSlots() {
        // a hundredfold inflation: the gradient's floor of 0.5 takes the limit down towards 4 (0.5·L + √L = L),
        // and the probe after 40 such windows to ⌊√L⌋
        LimitState state = new LimitState(100, 10, 0, false);
        int lowest = Integer.MAX_VALUE;
        for (int n = 0; n < 60; n++) {
            LimitDecision d = policy.decide(state, window(n, 1000, state, 100));
            assertTrue(d.limit() >= 1 && d.limit() <= 100, d.reason());
            if (d.reason().startsWith("probe")) {
                assertEquals((int) Math.sqrt(state.limit()), d.limit(), d.reason());
            }
            lowest = Math.min(lowest, d.limit());
            state = d.next();
        }
        assertTrue(lowest >= 1 && lowest < 4, "the probe went below the gradient's floor: " + lowest);
        LimitState high = new LimitState(100, 10, 0, false);
        LimitDecision fewer = policy.decide(high, window(1, 10, high, 40));
        assertEquals(40, fewer.limit(), "slots that closed lower the bound at once");
        LimitDecision none = policy.decide(LimitState.initial(),
                new LimitObservation(0, 250, 0, Double.NaN, 0, 0, 0, 30));
        assertEquals(30, none.limit());
        assertEquals(LimitState.initial(), none.next());
    }

    @Test
    void aFirstWindowBelowTheLimitIsTheBaselineAndTheLimitInForceStays() {
        LimitObservation light = new LimitObservation(0, 250, 40, 10, 5, 0, 100, 100);
        LimitDecision d = policy.decide(LimitState.initial(), light);
        assertEquals(10, d.next().baselineMs());
        assertEquals(100, d.limit(), "every slot may run until service time inflates");
        LimitDecision few = policy.decide(LimitState.initial(), new LimitObservation(0, 250, 40, 10, 5, 0, 8, 100));
        assertEquals(8, few.limit(), "the limit in force is at most the slots");
    }

    @Test
    void aFirstWindowThatBindsTheLimitBeforeAnyBaselineCutsItToMeasureOne() {
        // a host that boots into a flood: 100 running at 5× the no-load time it has never seen
        LimitObservation flood = new LimitObservation(0, 250, 500, 100, 100, 400, 100, 100);
        LimitDecision probe = policy.decide(LimitState.initial(), flood);
        assertEquals(10, probe.limit());
        assertTrue(probe.reason().startsWith("probe: "), probe.reason());
        assertTrue(probe.next().measuring());
        // the next window still carries the flood's stragglers: it is the baseline for now, not a second probe
        LimitObservation mixed = new LimitObservation(1, 250, 100, 60, 10, 400, 100, 10);
        LimitDecision measured = policy.decide(probe.next(), mixed);
        assertEquals(60, measured.next().baselineMs());
        assertTrue(measured.limit() > 10, measured.reason());
        LimitObservation clean = new LimitObservation(2, 250, 130, 20, measured.limit(), 400, 100, measured.limit());
        assertEquals(20, policy.decide(measured.next(), clean).next().baselineMs(), "the lowest mean wins");
    }

    @Test
    void aLowLimitWhoseEveryWindowIsThinStillGrowsBackToTheSlots() {
        // limit 1, 50 ms requests: five finish in a window, never ten
        LimitState state = new LimitState(1, 50, 0, false);
        for (int n = 0; n < 40; n++) {
            int limit = (int) Math.floor(state.limit());
            int finished = (int) Math.min(5L * limit, 200);
            state = policy.decide(state, new LimitObservation(n, 250, finished, 50, limit, 30, 8, limit)).next();
        }
        assertEquals(8, state.limit(), "the 8 slots, with nothing inflating");
    }

    @Test
    void thinWindowsAreJudgedTogetherOnceTheyHoldEnoughRequestsAndAWindowWhereTheLimitDidNotBindChangesNothing() {
        LimitState state = new LimitState(50, 10, 0, false);
        LimitDecision thin = policy.decide(state, new LimitObservation(3, 250, 6, 40, 50, 10, 100, 50));
        assertEquals(50, thin.limit());
        assertEquals(new LimitState(50, 10, 0, false, 6, 240, 50), thin.next(), "carried, not judged");
        assertTrue(thin.reason().startsWith("6 finished since the last judged window, at least 10 needed"),
                thin.reason());
        // four more at 40 ms: ten in all, judged together (4× the baseline: the limit shrinks)
        LimitDecision judged = policy.decide(thin.next(), new LimitObservation(4, 250, 4, 40, 50, 10, 100, 50));
        assertEquals(46, judged.limit(), judged.reason());
        assertTrue(judged.reason().startsWith("slot time 40.000 ms"), judged.reason());
        assertEquals(0, judged.next().pendingCompleted());
        // 40 at once of 50, and 40 + √50 < 50: the limit did not bind
        LimitDecision idle = policy.decide(state, new LimitObservation(3, 250, 200, 40, 42, 0, 100, 50));
        assertEquals(50, idle.limit());
        assertEquals(50, idle.next().limit());
        assertTrue(idle.reason().startsWith("app-limited: at most 42 ran at once"), idle.reason());
    }

    @Test
    void aBaselineUnconfirmedForProbeWindowsIsMeasuredAgainAtTheSquareRootOfTheLimit() {
        LimitState state = new LimitState(25, 10, 0, false);
        // the dependency became twice as slow on its own: every window is 2× the baseline
        int probes = 0;
        for (int n = 0; n < GradientLimitPolicy.Params.DEFAULTS.probeWindows(); n++) {
            LimitDecision d = policy.decide(state, window(n, 20, state, 100));
            if (d.reason().startsWith("probe")) {
                probes++;
                assertEquals(Math.floor(Math.sqrt(state.limit())), d.limit(), d.reason());
                assertTrue(Double.isNaN(d.next().baselineMs()));
                assertTrue(d.next().measuring());
            }
            state = d.next();
        }
        assertEquals(1, probes);
        LimitDecision after = policy.decide(state, window(99, 20, state, 100));
        assertEquals(20, after.next().baselineMs(), "the next window is the new baseline");
        assertFalse(after.next().measuring());
    }

    @Test
    void sameStateAndWindowGiveTheSameDecisionAndParametersRoundTrip() {
        LimitState state = new LimitState(37.5, 12, 3, false);
        LimitObservation o = new LimitObservation(7, 251.3, 180, 19.7, 37, 12, 64, 37);
        assertEquals(policy.decide(state, o), policy.decide(state, o));
        Map<String, Object> params = policy.params();
        assertEquals(policy.params(), Policies.createLimit(GradientLimitPolicy.ID, params).params());
        assertThrows(IllegalArgumentException.class, () -> Policies.createLimit(GradientLimitPolicy.ID,
                Map.of("tolerance", 0.5)));
        assertThrows(IllegalArgumentException.class, () -> Policies.createLimit("vegas/1", Map.of()));
    }
}
