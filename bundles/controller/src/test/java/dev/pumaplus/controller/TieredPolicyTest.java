/*
 * Claims about the default policy's control law (docs/CONTROL.md): one test per tier, cooldown, gate,
 * guard and the Little's-law step size, each on hand-built observations.
 */
package dev.pumaplus.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class TieredPolicyTest {

    private final TieredPolicy policy = new TieredPolicy(TieredPolicy.Params.DEFAULTS.withBounds(1, 32, 50));

    /** A mutable builder over Observation, defaults: 1 ready one-slot unit, S 25 ms, light load. */
    static final class Obs {
        long tick = 10;
        long tickMs = Observation.DEFAULT_TICK_MS;
        double lambda = 20;
        double p95 = 5;
        double slotMs = 25;
        int depth;
        int busy;
        int live = 1;
        double wpred;
        int units = 1;
        int ready = 1;
        int spu = 1;
        double deadMs = 1000;
        double memPerUnit = Double.NaN;
        double memAvail = Double.NaN;
        double cpu = Double.NaN;
        boolean gain = true;
        /** A bridge beside the units (Ractor-like: 5 ms, gain known); off unless {@link #bridged}. */
        boolean bridge;
        int bridgeUnits;
        int bridgeReady;
        double bridgeDeadMs = 5;
        boolean bridgeGain = true;
        /** A thread bridge: its slots share their process's GVL. */
        boolean bridgeSharesGvl;
        double gvlWaitRatio = Double.NaN;
        /** An alarm's observation (between ticks) with the oldest request's wait, ms; a tick's unless set. */
        boolean alarm;
        double oldestWaitMs = Double.NaN;
        /** The concurrency limit of fiber slots in force; 0: none. */
        int concurrencyLimit;

        Observation build() {
            Observation.Builder b = Observation.builder().tick(tick).tickMs(tickMs)
                    .arrivalsPerSec(lambda).queueP95Ms(p95).queueP99Ms(p95).slotMs(slotMs).depth(depth)
                    .busySlots(busy).liveSlots(live).predictedWaitMs(wpred).units(units).readyUnits(ready)
                    .slotsPerUnit(spu).deadTimeMs(deadMs).memPerUnitMb(memPerUnit).memAvailableMb(memAvail)
                    .cpuBusy(cpu).gainKnown(gain).gvlWaitRatio(gvlWaitRatio).alarm(alarm)
                    .oldestWaitMs(oldestWaitMs).concurrencyLimit(concurrencyLimit);
            if (bridge) {
                b.bridgeUnits(bridgeUnits).bridgeReadyUnits(bridgeReady).bridgeSlotsPerUnit(1)
                        .bridgeDeadTimeMs(bridgeDeadMs).bridgeGainKnown(bridgeGain).bridgeSharesGvl(bridgeSharesGvl);
            }
            return b.build();
        }

        /** Makes it an alarm's observation: the oldest request has waited {@code ms}. */
        Obs alarmAt(double ms) {
            alarm = true;
            oldestWaitMs = ms;
            return this;
        }

        Obs bridged() {
            bridge = true;
            return this;
        }

        /** A thread bridge whose workers measured GVL wait at {@code ratio} of service time. */
        Obs threadBridge(double ratio) {
            bridge = true;
            bridgeSharesGvl = true;
            gvlWaitRatio = ratio;
            return this;
        }

        /** An overload: λ rps against the current units, queue p95 and W_pred at {@code ms}. */
        Obs overloaded(double lambdaRps, double ms, int queued) {
            lambda = lambdaRps;
            p95 = ms;
            wpred = ms;
            depth = queued;
            busy = live;
            return this;
        }
    }

    @Test
    void hotTierAddsTheWholeLittlesLawShortfallInOneDecision() {
        Obs o = new Obs();
        o.overloaded(360, 500, 300);
        Decision d = policy.decide(State.initial(), o.build());
        // B = 300 + (360 - 40)·1 s = 620; (360 + 620/2)·0.025/0.7 = 23.9 → 24 slots → 24 units; 23 to add
        assertEquals(23, d.delta(), d.reason());
        assertEquals(State.Tier.HOT, d.tier());
        assertTrue(d.reason().contains("need 24 units"), d.reason());
        assertEquals(10, d.next().lastUpTick());
    }

    /**
     * The first tick of the real run's step (docs/CONTROL.md): the step began ~0.4 s before the tick, so
     * the second's λ reads 101.6 rps while 135 requests queued behind 4 saturated slots (S 28.878 ms).
     */
    private static Obs firstTickOfTheRealStep() {
        Obs o = new Obs();
        o.spu = 4;
        o.live = 4;
        o.slotMs = 28.878;
        return o.overloaded(101.6, 981.8, 135);
    }

    /**
     * λ alone sized 2 units (add 1) for {@link #firstTickOfTheRealStep}; the queue's growth says the
     * arrivals are at least μ + growth per tick. The tick is the observation's: the same growth seen after
     * a 0.5 s tick is twice the rate.
     */
    @Test
    void aStepWithinTheTickIsSizedFromTheQueuesGrowthOverTheTickNotTheDilutedSecond() {
        Obs o = firstTickOfTheRealStep();
        Decision d = policy.decide(State.initial(), o.build());
        // μ = 4/0.028878 = 138.5; the previous (steady) tick's queue was under 0.05·138.5 = 6.9, so it grew
        // by ≥ 128.1: λ ≥ 266.6; B = 135 + (266.6 - 138.5)·1 = 263.1; (266.6 + 131.6)·0.028878/0.7 = 16.4
        // → 17 slots → 5 units of 4: add 4
        assertEquals(4, d.delta(), d.reason());
        assertTrue(d.reason().contains("from the queue's growth"), d.reason());
        o.tickMs = 500;
        Decision halfTick = policy.decide(State.initial(), o.build());
        // λ ≥ 138.5 + 128.1/0.5 = 394.7; B = 135 + (394.7 - 138.5)·1 = 391.2;
        // (394.7 + 195.6)·0.028878/0.7 = 24.4 → 25 slots → 7 units of 4: add 6
        assertEquals(6, halfTick.delta(), halfTick.reason());
        assertTrue(halfTick.reason().contains("λ 394.662 rps from the queue's growth"), halfTick.reason());
    }

    @Test
    void afterAHotTickTheQueueIsNotTakenForNewArrivals() {
        Obs o = firstTickOfTheRealStep();
        // The previous tick was already hot: the queue may be older than this tick, so λ alone is used
        // (B = 135; (101.6 + 67.5)·0.028878/0.7 = 7 slots → 2 units: add 1).
        State hot = new State(State.Tier.HOT, 1, 0, State.NEVER, State.NEVER);
        Decision d = policy.decide(hot, o.build());
        assertEquals(1, d.delta(), d.reason());
        assertFalse(d.reason().contains("from the queue's growth"), d.reason());
    }

    /**
     * Real run 4's step: the tick before saw the first 7 queued (warm, W_pred 54 ms), this one 268 behind
     * 4 slots while λ read 274 rps. A warm tick's queue was under the hot threshold (4 × 50 ms · μ = 28.6
     * requests), so the rest grew within this tick.
     */
    @Test
    void afterAWarmTickOnlyTheGrowthPastTheHotThresholdCountsAsNewArrivals() {
        Obs o = new Obs();
        o.spu = 4;
        o.live = 4;
        o.slotMs = 27.949;
        o.overloaded(274, 1879.6, 268);
        State warm = new State(State.Tier.WARM, 1, 0, State.NEVER, State.NEVER);
        Decision d = policy.decide(warm, o.build());
        // μ = 143.1; λ ≥ 143.1 + (268 - 28.6) = 382.5; B = 268 + 239.4 = 507.4;
        // (382.5 + 253.7)·0.027949/0.7 = 25.4 → 26 slots → 7 units: add 6 (λ alone sized 5: add 4)
        assertEquals(6, d.delta(), d.reason());
        assertTrue(d.reason().contains("λ 382.494") && d.reason().contains("from the queue's growth"), d.reason());
    }

    @Test
    void stepSizeCountsSlotsPerUnit() {
        Obs o = new Obs();
        o.spu = 5;
        o.live = 5;
        o.overloaded(360, 500, 0);
        // B = (360 - 200)·1 = 160; (360 + 80)·0.025/0.7 = 15.7 → 16 slots → 4 units of 5; 3 to add
        assertEquals(3, policy.decide(State.initial(), o.build()).delta());
    }

    @Test
    void warmTierWaitsForASustainedBreach() {
        Obs o = new Obs();
        o.overloaded(60, 80, 2);
        Decision first = policy.decide(State.initial(), o.build());
        assertEquals(0, first.delta());
        assertEquals(State.Tier.WARM, first.tier());
        assertTrue(first.reason().contains("breach for 1 of 2 ticks"), first.reason());
        o.tick++;
        Decision second = policy.decide(first.next(), o.build());
        assertTrue(second.delta() > 0, second.reason());
    }

    @Test
    void hysteresisKeepsTheBreachStreakJustUnderTheTarget() {
        Obs o = new Obs();
        o.overloaded(60, 80, 2);
        Decision first = policy.decide(State.initial(), o.build());
        o.tick++;
        o.p95 = 45; // under the 50 ms target, above the 40 ms exit
        o.wpred = 45;
        Decision band = policy.decide(first.next(), o.build());
        assertEquals(State.Tier.WARM, band.tier());
        assertEquals(2, band.next().breachTicks());
        o.tick++;
        o.p95 = 30;
        o.wpred = 30;
        o.depth = 0;
        Decision out = policy.decide(band.next(), o.build());
        assertEquals(0, out.next().breachTicks());
        assertFalse(out.tier().equals(State.Tier.WARM));
    }

    @Test
    void aJustBelowTargetSignalNeverStartsABreach() {
        Obs o = new Obs();
        o.overloaded(30, 45, 0);
        Decision d = policy.decide(State.initial(), o.build());
        assertEquals(State.Tier.STEADY, d.tier());
        assertEquals(0, d.delta());
    }

    @Test
    void warmCooldownDeclinesUntilItHasPassed() {
        Obs o = new Obs();
        o.overloaded(60, 80, 2);
        State afterAdd = new State(State.Tier.WARM, 5, 0, 9, State.NEVER);
        Decision d = policy.decide(afterAdd, o.build());
        assertEquals(0, d.delta());
        assertTrue(d.reason().contains("cooldown, 1 ticks left"), d.reason());
        o.tick = 11;
        assertTrue(policy.decide(afterAdd, o.build()).delta() > 0);
    }

    @Test
    void settledGateDeclinesWhileBootingUnitsCoverTheNeed() {
        Obs o = new Obs();
        o.units = 24;
        o.ready = 1;
        o.overloaded(360, 900, 600);
        Decision d = policy.decide(new State(State.Tier.HOT, 1, 0, 9, State.NEVER), o.build());
        assertEquals(0, d.delta(), d.reason());
        assertTrue(d.reason().contains("settled gate, 23 units booting"), d.reason());
    }

    @Test
    void settledGateLetsThroughTheShortfallBootingUnitsDoNotCover() {
        Obs o = new Obs();
        o.units = 10;
        o.ready = 1;
        o.overloaded(360, 900, 300);
        Decision d = policy.decide(new State(State.Tier.HOT, 1, 0, 9, State.NEVER), o.build());
        // while units boot the need is λ's alone: 360 · 0.025 / 0.7 = 12.9 → 13 units, 10 expected
        assertEquals(3, d.delta(), d.reason());
    }

    @Test
    void cpuSaturationGuardDeclinesAndSaysShed() {
        Obs o = new Obs();
        o.overloaded(360, 500, 300);
        o.cpu = 0.97;
        Decision d = policy.decide(State.initial(), o.build());
        assertEquals(0, d.delta());
        assertTrue(d.reason().contains("CPU is saturated (97% busy)"), d.reason());
        assertTrue(d.reason().contains("shed instead"), d.reason());
    }

    @Test
    void aConcurrencyLimitBelowTheSlotsDeclinesAdditionsUnlessTheWorkersThreadsAreTheBottleneck() {
        Obs o = new Obs();
        o.spu = 50; // one worker of 50 fiber slots, the limiter lets 24 run: a dependency is saturated
        o.live = 50;
        o.overloaded(2000, 2500, 2400);
        o.busy = 24;
        o.slotMs = 24;
        o.concurrencyLimit = 24;
        Decision d = policy.decide(State.initial(), o.build());
        assertEquals(0, d.delta(), d.reason());
        assertTrue(d.reason().contains("the concurrency limit binds (24 of 50 slots may run)"), d.reason());
        assertTrue(d.reason().contains("shed instead"), d.reason());
        o.gvlWaitRatio = 0.6; // the fibers wait for their worker's thread: another process adds one
        assertTrue(policy.decide(State.initial(), o.build()).delta() > 0);
        o.gvlWaitRatio = Double.NaN;
        o.concurrencyLimit = 50; // every slot may run: the limit does not bind
        assertTrue(policy.decide(State.initial(), o.build()).delta() > 0);
    }

    @Test
    void memoryGuardCapsTheStepToWhatFits() {
        Obs o = new Obs();
        o.overloaded(360, 500, 300);
        o.memPerUnit = 100;
        o.memAvail = 756; // (756 - 256) / 100 = 5
        Decision d = policy.decide(State.initial(), o.build());
        assertEquals(5, d.delta(), d.reason());
        o.memAvail = 300;
        Decision none = policy.decide(State.initial(), o.build());
        assertEquals(0, none.delta());
        assertTrue(none.reason().contains("memory guard allows none"), none.reason());
    }

    @Test
    void unknownGainNeverAddsAUnit() {
        Obs o = new Obs();
        o.overloaded(360, 500, 300);
        o.gain = false;
        Decision d = policy.decide(State.initial(), o.build());
        assertEquals(0, d.delta());
        assertTrue(d.reason().contains("gain of a unit is unknown"), d.reason());
    }

    @Test
    void maxBoundsTheStep() {
        TieredPolicy small = new TieredPolicy(TieredPolicy.Params.DEFAULTS.withBounds(1, 6, 50));
        Obs o = new Obs();
        o.overloaded(360, 500, 300);
        assertEquals(5, small.decide(State.initial(), o.build()).delta());
        o.units = 6;
        o.ready = 6;
        o.live = 6;
        Decision d = small.decide(State.initial(), o.build());
        assertEquals(0, d.delta());
        assertTrue(d.reason().contains("at max 6"), d.reason());
    }

    @Test
    void minIsRestoredWithoutABreach() {
        TieredPolicy two = new TieredPolicy(TieredPolicy.Params.DEFAULTS.withBounds(2, 8, 50));
        Decision d = two.decide(State.initial(), new Obs().build());
        assertEquals(1, d.delta(), d.reason());
        assertTrue(d.reason().contains("below min 2"), d.reason());
    }

    @Test
    void unknownServiceTimeAddsOneUnit() {
        Obs o = new Obs();
        o.slotMs = Double.NaN;
        o.overloaded(100, 500, 50);
        Decision d = policy.decide(State.initial(), o.build());
        assertEquals(1, d.delta(), d.reason());
        assertTrue(d.reason().contains("service time unknown"), d.reason());
    }

    @Test
    void scaleDownOnlyAfterSustainedIdleAndThenToTheNeed() {
        Obs o = new Obs();
        o.units = 20;
        o.ready = 20;
        o.live = 20;
        o.lambda = 30;
        o.p95 = 0;
        State s = State.initial();
        for (int i = 1; i < 10; i++) {
            Decision d = policy.decide(s, o.build());
            assertEquals(0, d.delta(), d.reason());
            assertEquals(State.Tier.IDLE, d.tier());
            s = d.next();
            o.tick++;
        }
        Decision d = policy.decide(s, o.build());
        // 30 rps · 25 ms / 0.5 = 1.5 → 2 slots → 2 units kept
        assertEquals(-18, d.delta(), d.reason());
        assertEquals(0, d.next().idleTicks());
    }

    @Test
    void oneBusyTickResetsTheIdleStreak() {
        Obs o = new Obs();
        o.units = 4;
        o.ready = 4;
        o.live = 4;
        o.lambda = 10;
        o.p95 = 0;
        State s = new State(State.Tier.IDLE, 0, 9, State.NEVER, State.NEVER);
        o.lambda = 80; // ρ = 80 · 0.025 / 4 = 0.5: not idle
        Decision d = policy.decide(s, o.build());
        assertEquals(0, d.next().idleTicks());
        assertEquals(0, d.delta());
    }

    @Test
    void downCooldownSpacesRemovals() {
        Obs o = new Obs();
        o.units = 6;
        o.ready = 6;
        o.live = 6;
        o.lambda = 10;
        o.p95 = 0;
        State justRemoved = new State(State.Tier.IDLE, 0, 20, State.NEVER, 8);
        Decision d = policy.decide(justRemoved, o.build());
        assertEquals(0, d.delta());
        assertTrue(d.reason().contains("cooldown 3 ticks left"), d.reason());
    }

    @Test
    void aDrainedQueueWithALaggingPercentileAddsNothing() {
        Obs o = new Obs();
        o.units = 24;
        o.ready = 24;
        o.live = 24;
        o.lambda = 360;
        o.p95 = 1400; // last second's dispatches waited; nothing waits now
        o.wpred = 0;
        Decision d = policy.decide(new State(State.Tier.HOT, 2, 0, 5, State.NEVER), o.build());
        assertEquals(0, d.delta(), d.reason());
        assertTrue(d.reason().contains("queue already drained"), d.reason());
    }

    /**
     * Real run 5, the tick after the step's first decision: the 5 added workers have dialled in and drain
     * the 161 requests the step queued; W_pred (209 ms) still reads that backlog. μ − λ = 774 − 384 rps
     * clears it in ~0.4 s, within the drain horizon: no further unit (before, one was added here and
     * another a tick later, 8 workers where Little's law sized 6).
     */
    @Test
    void aBacklogTheReadyCapacityDrainsWithinTheHorizonAddsNothing() {
        Obs o = new Obs();
        o.spu = 4;
        o.units = 6;
        o.ready = 6;
        o.live = 24;
        o.slotMs = 31.004;
        o.overloaded(383.5, 209.3, 161);
        o.p95 = 679.5;
        o.tick = 27;
        Decision d = policy.decide(new State(State.Tier.HOT, 1, 0, 26, State.NEVER), o.build());
        assertEquals(0, d.delta(), d.reason());
        assertTrue(d.reason().contains("the queue drains in"), d.reason());
    }

    @Test
    void everyDecisionHasAReason() {
        Obs o = new Obs();
        for (double ms : new double[] {0, 10, 45, 60, 300}) {
            o.p95 = ms;
            o.wpred = ms;
            assertFalse(policy.decide(State.initial(), o.build()).reason().isBlank());
        }
    }

    @Test
    void parametersThatBreakHysteresisAreRefused() {
        TieredPolicy.Params p = TieredPolicy.Params.DEFAULTS;
        assertThrows(IllegalArgumentException.class, () -> new TieredPolicy(new TieredPolicy.Params(50, 1, 8, 0.7,
                2000, 4, 0.8, 2, 2, 0, 0.6, 0.5, 10, 5, 0.5, 0.95, 256, 500, 16, 0.2, 1)));
        assertEquals(p, TieredPolicy.Params.fromMap(p.toMap()));
    }

    // --- the bridge ----------------------------------------------------------------------------------------

    @Test
    void aStepThatAddsUnitsAlsoAddsBridgeSlotsForEverySlotOnItsWay() {
        Obs o = new Obs().bridged();
        o.spu = 2;
        o.live = 2;
        o.overloaded(360, 500, 300);
        Decision d = policy.decide(State.initial(), o.build());
        assertTrue(d.delta() > 0, d.reason());
        assertEquals(Math.min(16, d.delta() * 2), d.bridgeDelta(), d.reason());
        assertTrue(d.reason().contains("bridge: add " + d.bridgeDelta() + " slots"), d.reason());
    }

    @Test
    void bridgeSlotsAreBoundedByMaxBridgeSlotsAndCountThoseAlreadyRunning() {
        Obs o = new Obs().bridged();
        o.overloaded(360, 500, 300);
        o.bridgeUnits = 10;
        o.bridgeReady = 10;
        Decision d = policy.decide(State.initial(), o.build());
        assertTrue(d.delta() > 16, d.reason());
        assertEquals(16 - 10, d.bridgeDelta(), d.reason());
        assertTrue(d.reason().contains("(max 16)"), d.reason());
    }

    @Test
    void noBridgeWhenTheUnitsDeadTimeLeadsTheBridgesByLessThanBridgeMinLead() {
        Obs o = new Obs().bridged();
        o.overloaded(360, 500, 300);
        o.deadMs = 400;
        Decision d = policy.decide(State.initial(), o.build());
        assertTrue(d.delta() > 0, d.reason());
        assertEquals(0, d.bridgeDelta());
        assertTrue(d.reason().contains("by less than 500 ms"), d.reason());
    }

    @Test
    void aBridgeSlotOfUnknownGainIsNeverAdded() {
        Obs o = new Obs().bridged();
        o.overloaded(360, 500, 300);
        o.bridgeGain = false;
        Decision d = policy.decide(State.initial(), o.build());
        assertTrue(d.delta() > 0, d.reason());
        assertEquals(0, d.bridgeDelta());
        assertTrue(d.reason().contains("gain of a bridge slot is unknown"), d.reason());
    }

    @Test
    void threadBridgeSlotsAreAddedWhenRequestsHardlyWaitForTheGvl() {
        Obs o = new Obs().threadBridge(0.004);
        o.spu = 2;
        o.live = 2;
        o.overloaded(360, 500, 300);
        Decision d = policy.decide(State.initial(), o.build());
        assertTrue(d.delta() > 0, d.reason());
        assertEquals(Math.min(16, d.delta() * 2), d.bridgeDelta(), d.reason());
        assertTrue(d.reason().contains("the GVL is free (requests wait for it 0.4% of their service time)"),
                d.reason());
    }

    @Test
    void threadBridgeSlotsAreNotAddedWhenTheGvlIsTheBottleneck() {
        Obs o = new Obs().threadBridge(0.48);
        o.spu = 2;
        o.live = 2;
        o.overloaded(360, 500, 300);
        Decision d = policy.decide(State.initial(), o.build());
        assertTrue(d.delta() > 0, "the units (processes, each with its own GVL) are still added: " + d.reason());
        assertEquals(0, d.bridgeDelta(), d.reason());
        assertTrue(d.reason().endsWith("bridge: none, the GVL is the bottleneck: requests wait for it 48% of"
                + " their service time (at least 20%)"), d.reason());
    }

    @Test
    void runningThreadBridgeSlotsAreRemovedOnceTheGvlBecomesTheBottleneck() {
        Obs o = new Obs().threadBridge(0.35);
        o.units = 4;
        o.ready = 1;
        o.bridgeUnits = 6;
        o.bridgeReady = 6;
        o.live = 7;
        o.overloaded(120, 300, 40);
        State hot = new State(State.Tier.HOT, 1, 0, 9, State.NEVER);
        Decision d = policy.decide(hot, o.build());
        assertEquals(-6, d.bridgeDelta(), d.reason());
        assertTrue(d.reason().contains("bridge: remove 6 slots, the GVL is the bottleneck"), d.reason());
    }

    @Test
    void theGvlBoundaryIsGvlBoundRatio() {
        for (double[] c : new double[][] {{0.19, 1}, {0.2, 0}, {0.21, 0}}) {
            Obs o = new Obs().threadBridge(c[0]);
            o.overloaded(360, 500, 300);
            Decision d = policy.decide(State.initial(), o.build());
            assertEquals(c[1] > 0, d.bridgeDelta() > 0, c[0] + ": " + d.reason());
        }
    }

    @Test
    void aRactorBridgeIgnoresTheGvlWait() {
        Obs o = new Obs().bridged();
        o.gvlWaitRatio = 0.9;
        o.overloaded(360, 500, 300);
        Decision d = policy.decide(State.initial(), o.build());
        assertTrue(d.bridgeDelta() > 0, d.reason());
    }

    @Test
    void theCpuGuardStopsTheBridgeWithTheUnits() {
        Obs o = new Obs().bridged();
        o.overloaded(360, 500, 300);
        o.cpu = 0.99;
        Decision d = policy.decide(State.initial(), o.build());
        assertEquals(0, d.delta());
        assertEquals(0, d.bridgeDelta(), d.reason());
    }

    @Test
    void bridgeSlotsStayWhileUnitsBootAndAllGoOnceNoneIs() {
        Obs o = new Obs().bridged();
        o.units = 13;
        o.ready = 1;
        o.bridgeUnits = 12;
        o.bridgeReady = 12;
        o.live = 13;
        o.overloaded(360, 300, 100);
        State hot = new State(State.Tier.HOT, 1, 0, 9, State.NEVER);
        Decision booting = policy.decide(hot, o.build());
        assertEquals(0, booting.delta(), booting.reason());
        assertEquals(0, booting.bridgeDelta(), booting.reason());
        o.ready = 13;
        o.live = 25;
        o.overloaded(360, 20, 0);
        Decision ready = policy.decide(hot, o.build());
        assertEquals(-12, ready.bridgeDelta(), ready.reason());
        assertTrue(ready.reason().endsWith("bridge: remove 12 slots, no unit is booting"), ready.reason());
    }

    @Test
    void theUnitsDecisionIsTheSameWithOrWithoutABridge() {
        Obs plain = new Obs();
        Obs bridged = new Obs().bridged();
        for (double[] load : new double[][] {{20, 5, 0}, {60, 80, 3}, {360, 500, 300}, {2, 0, 0}}) {
            for (Obs o : new Obs[] {plain, bridged}) {
                o.overloaded(load[0], load[1], (int) load[2]);
            }
            State s = new State(State.Tier.WARM, 3, 0, State.NEVER, State.NEVER);
            Decision a = policy.decide(s, plain.build());
            Decision b = policy.decide(s, bridged.build());
            assertEquals(a.delta(), b.delta());
            assertEquals(a.tier(), b.tier());
            assertEquals(a.next(), b.next());
            assertTrue(b.reason().startsWith(a.reason()), b.reason());
            assertEquals(0, a.bridgeDelta());
        }
    }

    // --- alarms between ticks ------------------------------------------------------------------------------

    /**
     * 70 ms after a 12× step that began just after a calm tick: the last second's λ and p95 are the calm
     * ones, but every slot is busy and the oldest of 25 queued requests has waited past the 50 ms target.
     */
    private static Obs alarmEarlyInAStep() {
        Obs o = new Obs();
        o.depth = 25;
        o.busy = 1;
        o.wpred = 650;
        return o.alarmAt(70);
    }

    @Test
    void anAlarmOnAHotQueueAddsAtOnceAsAHotTickWould() {
        Decision d = policy.decide(State.initial(), alarmEarlyInAStep().build());
        // the 25 queued arrived within the oldest one's 70 ms: λ ≥ 357.1 rps against μ = 40;
        // B = 25 + 317.1·1 s = 342.1; (357.1 + 171.1)·0.025/0.7 = 18.9 → 19 units: add 18
        assertEquals(18, d.delta(), d.reason());
        assertTrue(d.reason().contains("λ 357.143 rps from the queue's growth"), d.reason());
        assertEquals(State.Tier.HOT, d.tier());
        assertTrue(d.reason().startsWith("alarm: oldest wait 70 ms, W_pred 650 ms, target 50 ms"), d.reason());
        assertEquals(new State(State.Tier.HOT, 0, 0, 10, State.NEVER), d.next());
    }

    @Test
    void anAlarmOnAQueueNotHotNowChangesNothingNotEvenTheState() {
        State warm = new State(State.Tier.WARM, 1, 0, State.NEVER, State.NEVER);
        Obs idleSlot = alarmEarlyInAStep();
        idleSlot.live = 2;
        Decision d = policy.decide(warm, idleSlot.build());
        assertEquals(0, d.delta(), d.reason());
        assertTrue(d.reason().endsWith("not hot now"), d.reason());
        assertEquals(warm, d.next());
        Obs young = alarmEarlyInAStep().alarmAt(30);
        assertEquals(warm, policy.decide(warm, young.build()).next());
        Obs unknown = alarmEarlyInAStep().alarmAt(Double.NaN);
        assertEquals(0, policy.decide(warm, unknown.build()).delta());
        // A burst at 30 rps on one slot: 4 queued, the oldest 50 ms; W_pred (4 + 1)·25 ms = 125 ms is 2.5×
        // the target, a warm breach the ticks must see persist, not a hot one.
        Obs burst = new Obs();
        burst.depth = 4;
        burst.busy = 1;
        burst.wpred = 125;
        burst.alarmAt(50);
        Decision d2 = policy.decide(State.initial(), burst.build());
        assertEquals(0, d2.delta(), d2.reason());
        assertEquals(State.initial(), d2.next());
        burst.alarmAt(200); // the oldest has waited 4× the target: hot whatever W_pred says, and sized
        Decision hot = policy.decide(State.initial(), burst.build());
        assertTrue(hot.reason().contains("the queue drains in 200 ms"), hot.reason()); // 4 at μ − λ = 20 rps
    }

    /**
     * 50 ms into a step to 350 rps on one 4-slot unit of 25 ms (160 rps): 17 queued, W_pred 106 ms, only 2.1×
     * the target, yet the queue outgrows its slots beyond chance (at least 216 rps arrived), so the first
     * alarm adds; the same wait with the count a 75 % load leaves (6 queued: at least 56 rps) does not.
     */
    @Test
    void anAlarmAddsAtOnceWhenTheQueueOutgrowsItsSlotsBeforeWPredIsHot() {
        Obs step = new Obs();
        step.spu = 4;
        step.live = 4;
        step.busy = 4;
        step.lambda = 40;
        step.depth = 17;
        step.wpred = 17 * 25 / 4.0;
        step.alarmAt(50);
        assertTrue(TieredPolicy.outgrowsSlots(step.build()));
        Decision d = policy.decide(State.initial(), step.build());
        assertTrue(d.delta() > 0, d.reason());
        assertTrue(d.reason().contains("λ 340 rps from the queue's growth"), d.reason());
        Obs poisson = step;
        poisson.depth = 6;
        poisson.wpred = 6 * 25 / 4.0;
        assertFalse(TieredPolicy.outgrowsSlots(poisson.build()));
        Decision calm = policy.decide(State.initial(), poisson.build());
        assertEquals(0, calm.delta(), calm.reason());
        assertTrue(calm.reason().endsWith("not hot now"), calm.reason());
    }

    @Test
    void anAlarmBeforeAnyRequestHasFinishedLeavesTheStepToTheTick() {
        Obs o = alarmEarlyInAStep();
        o.slotMs = Double.NaN;
        Decision d = policy.decide(State.initial(), o.build());
        assertEquals(0, d.delta(), d.reason());
        assertTrue(d.reason().endsWith("service time unknown, the tick decides"), d.reason());
        assertEquals(State.initial(), d.next());
    }

    @Test
    void anAlarmIsBoundedByTheSettledGateAndMaxAndLeavesTheStateWhenItDeclines() {
        State afterAdd = new State(State.Tier.HOT, 0, 0, 10, State.NEVER);
        Obs booting = alarmEarlyInAStep();
        booting.units = 19;
        Decision gated = policy.decide(afterAdd, booting.build());
        assertEquals(0, gated.delta(), gated.reason());
        assertTrue(gated.reason().contains("settled gate, 18 units booting"), gated.reason());
        assertEquals(afterAdd, gated.next());
        TieredPolicy two = new TieredPolicy(TieredPolicy.Params.DEFAULTS.withBounds(1, 2, 50));
        assertEquals(1, two.decide(State.initial(), alarmEarlyInAStep().build()).delta());
    }

    @Test
    void theAlarmThresholdIsTheTargetTimesAlarmRatioAndZeroTurnsAlarmsOff() {
        assertEquals(50, policy.alarmThresholdMs());
        var params = TieredPolicy.Params.DEFAULTS.toMap();
        params.put("alarmRatio", 2.0);
        TieredPolicy doubled = new TieredPolicy(TieredPolicy.Params.fromMap(params));
        assertEquals(100, doubled.alarmThresholdMs());
        assertEquals(0, doubled.decide(State.initial(), alarmEarlyInAStep().build()).delta());
        params.put("alarmRatio", 0.0);
        TieredPolicy off = new TieredPolicy(TieredPolicy.Params.fromMap(params));
        assertTrue(Double.isNaN(off.alarmThresholdMs()));
        assertEquals(0, off.decide(State.initial(), alarmEarlyInAStep().build()).delta());
    }
}
