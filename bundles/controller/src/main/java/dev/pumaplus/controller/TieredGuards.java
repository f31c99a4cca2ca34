/*
 * The tiered policy's guards on every addition (docs/CONTROL.md): an unknown gain, a concurrency limit that
 * binds below the slots, saturated CPU and short memory; applied by TieredPolicy once it has sized a step,
 * inside the controller's pure decide(State, Observation).
 */
package dev.pumaplus.controller;

/**
 * A pure function of the observation and the units a step would add, with the policy's validated
 * parameters; immutable and thread-safe. The guards run in this order and the first that declines gives the
 * reason: an unknown gain ({@link Observation#gainKnown()}); a concurrency limit that binds below the live
 * slots ({@link Observation#limitBinds()}) unless the workers' threads are the bottleneck
 * ({@code gvlWaitRatio} at least {@code gvlBoundRatio}); CPU busy at least {@code cpuSaturation}; no unit
 * fitting in MemAvailable − {@code memReserveMb}. Memory that fits fewer units than asked caps the step.
 */
final class TieredGuards {

    /**
     * What the guards allow of an addition.
     *
     * @param units   the units to add (0 when refused)
     * @param refusal why none may be added, as it follows the step's need in the reason
     *                (", but ..."); null when allowed
     * @param note    what capped the step, as it follows the need (", memory guard allows n"); empty if nothing
     */
    record Allowance(int units, String refusal, String note) {
    }

    private final TieredPolicy.Params p;

    /** @param params validated ({@link TieredPolicy.Params#validated()}) */
    TieredGuards(TieredPolicy.Params params) {
        this.p = params;
    }

    /** How many of {@code delta} units (positive, within max) the guards let the step add. */
    Allowance allow(Observation o, int delta) {
        if (!o.gainKnown()) {
            return refused(", but the gain of a unit is unknown");
        }
        if (o.limitBinds() && !(o.gvlWaitRatio() >= p.gvlBoundRatio())) {
            // The limiter holds requests below the slots: what bounds capacity is the dependency behind them,
            // not the slots; a worker would add slots the limit does not let run. Unless the workers' own
            // thread is what inflates service time (fibers waiting for it): another process adds one.
            return refused(", but the concurrency limit binds ("
                    + o.concurrencyLimit() + " of " + o.liveSlots() + " slots may run) and the workers' threads are "
                    + "not the bottleneck" + (Double.isNaN(o.gvlWaitRatio()) ? "" : " (requests wait for them "
                    + TieredPolicy.fmt(o.gvlWaitRatio() * 100) + "% of their service time)")
                    + ": more units would add slots the limit does not run, shed instead");
        }
        if (!Double.isNaN(o.cpuBusy()) && o.cpuBusy() >= p.cpuSaturation()) {
            return refused(", but CPU is saturated ("
                    + TieredPolicy.fmt(o.cpuBusy() * 100) + "% busy): more units would add queue time, shed instead");
        }
        if (!Double.isNaN(o.memPerUnitMb()) && !Double.isNaN(o.memAvailableMb()) && o.memPerUnitMb() > 0) {
            int fit = (int) Math.floor((o.memAvailableMb() - p.memReserveMb()) / o.memPerUnitMb());
            if (fit <= 0) {
                return refused(", but the memory guard allows none (" + TieredPolicy.fmt(o.memAvailableMb())
                        + " MiB available, " + TieredPolicy.fmt(o.memPerUnitMb()) + " MiB per unit)");
            }
            if (fit < delta) {
                return new Allowance(fit, null, ", memory guard allows " + fit);
            }
        }
        return new Allowance(delta, null, "");
    }

    private static Allowance refused(String why) {
        return new Allowance(0, why, "");
    }
}
