/*
 * Claims about the default concurrency limiter (docs/CONTROL.md, "The concurrency limit"), each on
 * hand-built windows: it grows while service time stays at its no-load time (doubling while requests wait),
 * shrinks as it inflates, stays within [1, slots], holds still on thin or app-limited windows, measures
 * its baseline again at light load, probes for one it has not seen or that has gone stale and returns the
 * limit after the probe; a change of request mix is not read as inflation.
 */
package dev.pumaplus.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class GradientLimitPolicyTest {

    private final GradientLimitPolicy policy = GradientLimitPolicy.defaults();

    /**
     * A window of 200 requests of {@code serviceMs} on {@code slots} slots with the limit bound (as many
     * running as it allows) and 50 waiting; before the first window the limit in force is 20.
     */
    private static LimitObservation window(long n, double serviceMs, LimitState state, int slots) {
        return window(n, serviceMs, state, slots, 50);
    }

    private static LimitObservation window(long n, double serviceMs, LimitState state, int slots, int depth) {
        int limit = Double.isNaN(state.limit()) ? 20 : (int) state.limit();
        return new LimitObservation(n, 250, 200, serviceMs, limit, depth, slots, limit, Double.NaN);
    }

    /**
     * A window of {@code wanted} requests at once of {@code serviceMs} each (Little: as many finish as run
     * in 250 ms), as many as the limit lets run; the rest wait.
     */
    private static LimitObservation load(long n, double serviceMs, int wanted, LimitState state, int slots) {
        int limit = (int) Math.floor(state.limit());
        int running = Math.min(wanted, limit);
        return new LimitObservation(n, 250, (int) Math.round(running * 250 / serviceMs), serviceMs, running,
                wanted > limit ? 10 * (wanted - limit) : 0, slots, limit, Double.NaN);
    }

    @Test
    void growsByTheSquareRootOfTheLimitWhileServiceTimeStaysAtItsNoLoadTimeAndNothingWaits() {
        LimitState state = new LimitState(20, 10, 0);
        LimitDecision d = policy.decide(state, window(1, 10, state, 100, 0));
        assertEquals(20 + Math.sqrt(20), d.next().limit(), 1e-9);
        assertEquals(24, d.limit());
        assertTrue(d.reason().contains("gradient 1, limit 20 → 24"), d.reason());
        state = d.next();
        for (int n = 2; n < 40; n++) {
            state = policy.decide(state, window(n, 10, state, 100, 0)).next();
        }
        assertEquals(100, state.limit(), "grows to every slot and no further");
    }

    @Test
    void doublesWhileRequestsWaitAndServiceTimeStaysWithinTheDoublingRatioOfItsNoLoadTime() {
        LimitState state = new LimitState(11, 10, 0);
        LimitDecision d = policy.decide(state, window(1, 10.5, state, 128));
        assertEquals(22, d.next().limit(), 1e-9);
        assertTrue(d.reason().contains("doubled, limit 11 → 22"), d.reason());
        assertEquals(44, policy.decide(d.next(), window(2, 10.5, d.next(), 128)).limit());
        LimitDecision inflated = policy.decide(state, window(1, 11.5, state, 128));
        assertEquals(11 * 10 / 11.5 + Math.sqrt(11), inflated.next().limit(), 1e-9,
                "beyond 1.1 × the no-load time the gradient decides: " + inflated.reason());
    }

    @Test
    void shrinksWhenServiceTimeInflatesByAtMostHalfTheSmoothingPerWindow() {
        LimitState state = new LimitState(100, 10, 0);
        LimitDecision d = policy.decide(state, window(1, 50, state, 100));
        // gradient 10/50 = 0.2 is floored at 0.5: target 100·0.5 + 10 = 60, smoothed: 100 − 0.2·40 = 92
        assertEquals(92, d.next().limit(), 1e-9);
        assertEquals(92, d.limit());
        LimitDecision mild = policy.decide(state, window(1, 12.5, state, 100));
        // gradient 0.8: target 80 + 10 = 90, smoothed: 100 − 0.2·10 = 98
        assertEquals(98, mild.next().limit(), 1e-9);
    }

    @Test
    void aWindowWhoseRequestsWaitedForTheirWorkersThreadHoldsTheLimitInsteadOfShrinkingIt() {
        // /mix/0/10 on a saturated core: 12.4 ms of slot time left after 3 ms measured waiting for the thread
        LimitState state = new LimitState(200, 10.4, 0);
        LimitDecision busyCore = policy.decide(state, new LimitObservation(1, 250, 3000, 12.4, 200, 40, 256, 200, 3.0));
        assertEquals(200, busyCore.limit(), busyCore.reason());
        assertTrue(busyCore.reason().contains("the core is busy, limit stays 200"), busyCore.reason());

        LimitDecision dependency = policy.decide(state, new LimitObservation(1, 250, 3000, 12.4, 200, 40, 256, 200,
                0.5));
        assertTrue(dependency.limit() < 200, "a twentieth of the slot waiting is not the core: " + dependency.reason());
        LimitDecision unmeasured = policy.decide(state, window(1, 12.4, state, 256));
        assertEquals(dependency.limit(), unmeasured.limit(), "without a measured wait the law is unchanged");

        LimitDecision growing = policy.decide(state, new LimitObservation(1, 250, 3000, 10.4, 200, 40, 256, 200, 3.0));
        assertEquals(256, growing.limit(), "a busy core does not stop the limit from growing: " + growing.reason());
    }

    @Test
    void settlesNearKneePlusItsSquareRootAgainstADependencyThatSlowsInProportionBeyondTheKnee() {
        LimitState state = new LimitState(100, 10, 0);
        for (int n = 0; n < 200; n++) {
            double service = 10 * Math.max(1, state.limit() / 20); // S = S₀·c/K beyond K = 20
            state = policy.decide(state, window(n, service, state, 100)).next();
            if (n >= 40) {
                assertTrue(state.limit() > 22 && state.limit() < 27, "window " + n + ": limit " + state.limit());
            }
        }
    }

    @Test
    void neverLeavesOneToTheSlots() {
        // a hundredfold inflation at any concurrency: the gradient's floor of 0.5 shrinks the limit, the probe
        // after 8 such windows cuts it to ⌊√L⌋, and its return brings it back (the inflation was not the limit's)
        LimitState state = new LimitState(100, 10, 0);
        int probes = 0;
        for (int n = 0; n < 60; n++) {
            LimitDecision d = policy.decide(state, window(n, 1000, state, 100));
            assertTrue(d.limit() >= 1 && d.limit() <= 100, d.reason());
            if (d.reason().startsWith("probe: slot time 1000.000 ms above")) {
                probes++;
                assertEquals((int) Math.sqrt(state.limit()), d.limit(), d.reason());
            }
            state = d.next();
        }
        assertEquals(1, probes, "once measured, the slower no-load time is confirmed by every window");
        LimitState high = new LimitState(100, 10, 0);
        LimitDecision fewer = policy.decide(high, window(1, 10, high, 40));
        assertEquals(40, fewer.limit(), "slots that closed lower the bound at once");
        LimitDecision none = policy.decide(LimitState.initial(),
                new LimitObservation(0, 250, 0, Double.NaN, 0, 0, 0, 30, Double.NaN));
        assertEquals(30, none.limit());
        assertEquals(LimitState.initial(), none.next());
    }

    @Test
    void aFirstWindowBelowTheLimitIsTheBaselineAndTheLimitInForceStays() {
        LimitObservation light = new LimitObservation(0, 250, 40, 10, 5, 0, 100, 100, Double.NaN);
        LimitDecision d = policy.decide(LimitState.initial(), light);
        assertEquals(10, d.next().baselineMs());
        assertEquals(100, d.limit(), "every slot may run until service time inflates");
        LimitDecision few = policy.decide(LimitState.initial(), new LimitObservation(0, 250, 40, 10, 5, 0, 8, 100, Double.NaN));
        assertEquals(8, few.limit(), "the limit in force is at most the slots");
    }

    @Test
    void aFirstWindowThatBindsTheLimitBeforeAnyBaselineCutsItToMeasureOneAndTheLimitReturnsToWhatItShows() {
        // a host that boots into a flood: 100 running at 5× the no-load time it has never seen
        LimitObservation flood = new LimitObservation(0, 250, 500, 100, 100, 400, 100, 100, Double.NaN);
        LimitDecision probe = policy.decide(LimitState.initial(), flood);
        assertEquals(10, probe.limit());
        assertTrue(probe.reason().startsWith("probe: "), probe.reason());
        assertTrue(probe.next().probing());
        // the next window still carries the flood's stragglers: the probe measures one more at its limit
        LimitObservation mixed = new LimitObservation(1, 250, 100, 60, 10, 400, 100, 10, Double.NaN);
        LimitDecision measuring = policy.decide(probe.next(), mixed);
        assertEquals(60, measuring.next().baselineMs());
        assertEquals(10, measuring.limit(), measuring.reason());
        LimitObservation clean = new LimitObservation(2, 250, 130, 20, 10, 400, 100, 10, Double.NaN);
        LimitDecision measured = policy.decide(measuring.next(), clean);
        assertEquals(20, measured.next().baselineMs(), "the lowest mean wins");
        assertFalse(measured.next().probing());
        // the flood's window ran 100 at 100 ms: at 20 ms the dependency takes 100·20/100 = 20, plus √100
        assertEquals(30, measured.limit(), measured.reason());
        assertTrue(measured.reason().startsWith("probe measured no-load 20.000 ms"), measured.reason());
    }

    @Test
    void aLowLimitWhoseEveryWindowIsThinStillGrowsBackToTheSlots() {
        // limit 1, 50 ms requests: five finish in a window, never ten
        LimitState state = new LimitState(1, 50, 0);
        for (int n = 0; n < 40; n++) {
            int limit = (int) Math.floor(state.limit());
            int finished = (int) Math.min(5L * limit, 200);
            state = policy.decide(state, new LimitObservation(n, 250, finished, 50, limit, 30, 8, limit, Double.NaN)).next();
        }
        assertEquals(8, state.limit(), "the 8 slots, with nothing inflating");
    }

    @Test
    void thinWindowsAreJudgedTogetherOnceTheyHoldEnoughRequestsAndAWindowWhereTheLimitDidNotBindChangesNothing() {
        LimitState state = new LimitState(50, 10, 0);
        LimitDecision thin = policy.decide(state, new LimitObservation(3, 250, 6, 40, 50, 10, 100, 50, Double.NaN));
        assertEquals(50, thin.limit());
        assertEquals(new LimitState(50, 10, 0, 0, Double.NaN, Double.NaN, 6, 240, 50), thin.next(),
                "carried, not judged");
        assertTrue(thin.reason().startsWith("6 finished since the last judged window, at least 10 needed"),
                thin.reason());
        // four more at 40 ms: ten in all, judged together (4× the baseline: the limit shrinks)
        LimitDecision judged = policy.decide(thin.next(), new LimitObservation(4, 250, 4, 40, 50, 10, 100, 50, Double.NaN));
        assertEquals(46, judged.limit(), judged.reason());
        assertTrue(judged.reason().startsWith("slot time 40.000 ms"), judged.reason());
        assertEquals(0, judged.next().pendingCompleted());
        // 40 at once of 50, and 40 + √50 < 50: the limit did not bind
        LimitDecision idle = policy.decide(state, new LimitObservation(3, 250, 200, 40, 42, 0, 100, 50, Double.NaN));
        assertEquals(50, idle.limit());
        assertEquals(50, idle.next().limit());
        assertTrue(idle.reason().startsWith("app-limited: at most 42 ran at once"), idle.reason());
    }

    @Test
    void aBaselineUnconfirmedForProbeWindowsWhileTheLimitBindsIsMeasuredAgainAndTheLimitReturns() {
        LimitState state = new LimitState(25, 10, 0);
        // the dependency became twice as slow on its own: every window is 2× the baseline, at any limit
        int probes = 0;
        double cut = Double.NaN;
        for (int n = 0; n < GradientLimitPolicy.Params.DEFAULTS.probeWindows(); n++) {
            LimitDecision d = policy.decide(state, window(n, 20, state, 100, 0));
            if (d.reason().startsWith("probe")) {
                probes++;
                cut = state.limit();
                assertEquals(Math.floor(Math.sqrt(state.limit())), d.limit(), d.reason());
                assertTrue(Double.isNaN(d.next().baselineMs()));
                assertTrue(d.next().probing());
            }
            state = d.next();
        }
        assertEquals(1, probes);
        LimitDecision first = policy.decide(state, window(98, 20, state, 100, 0));
        assertEquals(20, first.next().baselineMs(), "the probe's windows are the new baseline");
        assertTrue(first.next().probing(), "one more window to measure");
        LimitDecision back = policy.decide(first.next(), window(99, 20, first.next(), 100, 0));
        assertFalse(back.next().probing());
        assertEquals(cut + Math.sqrt(cut), back.next().limit(), 1e-9,
                "nothing inflated at the lower limit: the limit it cut, and its queue");
    }

    @Test
    void aWindowThatBindsTheLimitDoesNotProbeWhileItsBaselineIsCurrent() {
        LimitState state = new LimitState(60, 10, 0);
        for (int n = 0; n < 60; n++) {
            double service = 10 * Math.max(1, state.limit() / 20);
            LimitDecision d = policy.decide(state, window(n, service, state, 100));
            assertFalse(d.reason().startsWith("probe") && n > 20, "window " + n + ": " + d.reason());
            state = d.next();
        }
    }

    @Test
    void aLightWindowFindingTheBaselineStaleMeasuresItAgainWithoutAProbe() {
        // 0.1 ms requests set the baseline, then 10 ms ones at 4 at once of a limit of 128 (√128 ≈ 11)
        LimitState state = new LimitState(128, 0.1, 3);
        LimitDecision d = policy.decide(state, new LimitObservation(0, 250, 100, 10, 4, 0, 128, 128, Double.NaN));
        assertEquals(10, d.next().baselineMs());
        assertEquals(0, d.next().unconfirmedWindows());
        assertEquals(128, d.limit());
        assertTrue(d.reason().contains("no-load measured again at light load (was 0.100 ms)"), d.reason());
        // a light window it confirms moves it a quarter of the way to its mean; a busier one only lowers it
        LimitDecision light = policy.decide(d.next(), new LimitObservation(1, 250, 100, 12, 4, 0, 128, 128, Double.NaN));
        assertEquals(10.5, light.next().baselineMs(), 1e-9);
        LimitDecision busier = policy.decide(d.next(), new LimitObservation(1, 250, 800, 12, 30, 0, 128, 128, Double.NaN));
        assertEquals(10, busier.next().baselineMs(), 1e-9);
        assertEquals(1, policy.decide(d.next(), new LimitObservation(1, 250, 800, 16, 30, 0, 128, 128, Double.NaN)).next()
                .unconfirmedWindows(), "a busier stale window is not a measurement");
    }

    /**
     * The order of the fibers benchmark's windows (docs/benchmarks/NOTEBOOK.md, "The concurrency limit's
     * no-load time"): a /hello warm-up (0.1 ms, 16 at once), a /mix/0/10 one (10 ms, 16 at once), 24 windows
     * each at 150 and 300 rps (4 and 6 at once), then 3000 rps (30 at once wanted) on 128 fiber slots.
     * gradient/1 probed to 11 in the 150 rps cell, stayed there and took five windows to reach 30.
     */
    static int[] fibersBenchmarkOrder(LimitPolicy policy) {
        LimitState state = LimitState.initial();
        int[] limits = new int[16 + 16 + 24 + 24 + 8];
        int n = 0;
        for (int i = 0; i < limits.length; i++, n++) {
            LimitObservation o;
            if (Double.isNaN(state.limit())) {
                o = new LimitObservation(n, 250, 40000, 0.1, 16, 0, 128, 128, Double.NaN);
            } else if (i < 16) {
                o = load(n, 0.1, 16, state, 128);
            } else if (i < 32) {
                o = load(n, 10, 16, state, 128);
            } else if (i < 56) {
                o = load(n, 10, 4, state, 128);
            } else if (i < 80) {
                o = load(n, 10, 6, state, 128);
            } else {
                o = load(n, 10, 30, state, 128);
            }
            LimitDecision d = policy.decide(state, o);
            limits[i] = d.limit();
            state = d.next();
        }
        return limits;
    }

    @Test
    void aFastWarmUpThenASlowMixDoesNotProbeTheLimitDownAndTheSurgeFindsItWhereItWas() {
        int[] limits = fibersBenchmarkOrder(policy);
        for (int i = 0; i < limits.length; i++) {
            assertTrue(limits[i] >= 30, "window " + i + ": limit " + limits[i] + " of " + Arrays.toString(limits));
        }
    }

    @Test
    void aSurgeAfterAQuietPeriodAtALowLimitReachesTheConcurrencyItNeedsWithinTwoWindows() {
        // a limit left at 11 (by a probe, or a dependency that has since recovered), 40 quiet windows at 10 ms,
        // then 30 wanted at once
        LimitState state = new LimitState(11, 10, 0);
        long n = 0;
        for (; n < 40; n++) {
            state = policy.decide(state, load(n, 10, 3, state, 128)).next();
        }
        assertEquals(11, state.limit(), 1e-9, "quiet windows do not move the limit");
        int windows = 0;
        while (state.limit() < 30) {
            state = policy.decide(state, load(n++, 10, 30, state, 128)).next();
            windows++;
        }
        assertTrue(windows <= 2, windows + " windows to reach 30");
    }

    @Test
    void aDependencyThatTrulyInflatesAfterAChangeOfMixStillBringsTheLimitDownToItsKnee() {
        // 0.1 ms requests, then 20 ms ones at 3 at once, then more wanted at once than the 100 slots, of a
        // dependency whose calls slow in proportion beyond 20 in flight (S = 20 ms · c / 20)
        LimitState state = new LimitState(100, 0.1, 0);
        long n = 0;
        for (; n < 12; n++) {
            state = policy.decide(state, load(n, 20, 3, state, 100)).next();
        }
        assertEquals(20, state.baselineMs(), 1.0, "measured again at light load");
        for (int w = 0; w < 60; w++, n++) {
            int running = (int) Math.floor(state.limit());
            state = policy.decide(state, load(n, 20 * Math.max(1, running / 20.0), 150, state, 100)).next();
            if (w >= 16) {
                assertTrue(state.limit() >= 20 && state.limit() <= 30, "window " + w + ": limit " + state.limit());
            }
        }
    }

    @Test
    void sameStateAndWindowGiveTheSameDecisionAndParametersRoundTrip() {
        LimitState state = new LimitState(37.5, 12, 3);
        LimitObservation o = new LimitObservation(7, 251.3, 180, 19.7, 37, 12, 64, 37, Double.NaN);
        assertEquals(policy.decide(state, o), policy.decide(state, o));
        Map<String, Object> params = policy.params();
        assertEquals(policy.params(), Policies.createLimit(GradientLimitPolicy.ID, params).params());
        assertThrows(IllegalArgumentException.class, () -> Policies.createLimit(GradientLimitPolicy.ID,
                Map.of("tolerance", 0.5)));
        assertThrows(IllegalArgumentException.class, () -> Policies.createLimit("vegas/1", Map.of()));
    }
}
