/*
 * One simulated situation: an offered-load schedule, a service-time distribution and an actuator (slots per
 * unit, dead time, memory per unit), optionally with a bridge actuator (one-slot units, its own dead time).
 * Scenarios are the simulator tests' inputs and the rows of the comparison table.
 */
package dev.pumaplus.controller.sim;

import java.util.List;

/**
 * @param name          shown in the comparison table
 * @param phases        the offered load: each phase's Poisson rate (rps) and length (s), in order
 * @param service       slot times
 * @param slotsPerUnit  slots a unit brings (threads of a forked worker)
 * @param initialUnits  units ready at t = 0
 * @param deadTimeS     add() until the unit's slots are live, seconds
 * @param memPerUnitMb  memory a unit costs, MiB (for the memory column; NaN for "unknown" to the policy)
 * @param shedLimitMs   arrivals whose predicted wait exceeds this are shed (503); 0 = never shed
 * @param bridgeDeadTimeS the bridge actuator's dead time (one slot per unit, gain known: Ractors), seconds;
 *                      NaN for no bridge
 */
public record Scenario(String name, List<Phase> phases, ServiceTime service, int slotsPerUnit, int initialUnits,
                       double deadTimeS, double memPerUnitMb, double shedLimitMs, double bridgeDeadTimeS) {

    /** A scenario without a bridge. */
    public Scenario(String name, List<Phase> phases, ServiceTime service, int slotsPerUnit, int initialUnits,
                    double deadTimeS, double memPerUnitMb, double shedLimitMs) {
        this(name, phases, service, slotsPerUnit, initialUnits, deadTimeS, memPerUnitMb, shedLimitMs, Double.NaN);
    }

    /** True when a bridge actuator runs beside the units. */
    public boolean hasBridge() {
        return !Double.isNaN(bridgeDeadTimeS);
    }

    /** A constant offered rate for a while. */
    public record Phase(double rps, double seconds) {
    }

    /** Total length, s. */
    public double seconds() {
        return phases.stream().mapToDouble(Phase::seconds).sum();
    }

    /** The offered rate at time {@code t} (s); 0 after the end. */
    public double rateAt(double t) {
        double start = 0;
        for (Phase p : phases) {
            if (t < start + p.seconds()) {
                return p.rps();
            }
            start += p.seconds();
        }
        return 0;
    }

    /** The end of the phase containing {@code t}, s. */
    public double phaseEnd(double t) {
        double start = 0;
        for (Phase p : phases) {
            start += p.seconds();
            if (t < start) {
                return start;
            }
        }
        return Double.POSITIVE_INFINITY;
    }

    /**
     * The acceptance scenario: 30 rps for 20 s, a 12× step to 360 rps for 40 s, back to 30 rps for 60 s;
     * /mix/1/24-like slot times (log-normal, mean 25 ms, σ 0.3), one-thread forked workers with a 1 s dead
     * time, 60 MiB each, starting from one worker. No shedding, so every request's wait counts.
     */
    public static Scenario step12x() {
        return new Scenario("12x step, fork 1 s", List.of(new Phase(30, 20), new Phase(360, 40), new Phase(30, 60)),
                ServiceTime.logNormal(0.025, 0.3), 1, 1, 1.0, 60, 0);
    }

    /** {@link #step12x()} with 5-thread workers (the usual puma shape): fewer, larger units. */
    public static Scenario step12xThreads5() {
        return new Scenario("12x step, fork 1 s, 5 threads",
                List.of(new Phase(30, 20), new Phase(360, 40), new Phase(30, 60)),
                ServiceTime.logNormal(0.025, 0.3), 5, 1, 1.0, 60, 0);
    }

    /**
     * {@link #step12x()} with a Ractor bridge: one-slot units that dial in 5 ms after they are asked for
     * (a Ractor's spawn and link, well under the 50 ms default the Ractor actuator starts from).
     */
    public static Scenario step12xRactorBridge() {
        Scenario s = step12x();
        return new Scenario("12x step, fork 1 s, ractor 5 ms", s.phases(), s.service(), s.slotsPerUnit(),
                s.initialUnits(), s.deadTimeS(), s.memPerUnitMb(), s.shedLimitMs(), 0.005);
    }

    /** Seed 002's shape: 500 ms requests at 60 rps against 5 slots, no scaling room, shedding at 2.5 s. */
    public static Scenario slotExhaustion() {
        return new Scenario("slot exhaustion, shed 2.5 s", List.of(new Phase(60, 40)),
                ServiceTime.constant(0.5), 5, 1, 1.0, 60, 2500);
    }
}
