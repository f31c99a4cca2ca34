/*
 * The tiered policy's bridge rule (docs/CONTROL.md): with a fast actuator beside the primary one, bridge
 * slots cover the primary units still booting, and leave once none is; applied by TieredPolicy to its
 * primary decision, inside the controller's pure decide(State, Observation).
 */
package dev.pumaplus.controller;

/**
 * A pure function of the observation and the primary decision, with the policy's validated parameters;
 * immutable and thread-safe.
 */
final class TieredBridgeRule {

    private final TieredPolicy.Params p;

    /** @param params validated ({@link TieredPolicy.Params#validated()}) */
    TieredBridgeRule(TieredPolicy.Params params) {
        this.p = params;
    }

    /**
     * The bridge rule, after the primary decision: when that decision adds primary units whose dead time
     * leads the bridge's by at least {@code bridgeMinLeadMs}, bridge slots cover the slots still on their
     * way (booting plus just added), up to {@code maxBridgeSlots}; once no primary unit is booting, every
     * bridge slot is removed. The primary decision's guards (CPU, memory, min/max) have already passed when
     * it adds; a bridge slot of unknown gain is never added, and none while MemAvailable is under the reserve.
     * A bridge slot under the GVL (a thread) has no positive gain while the GVL is the bottleneck (GVL wait
     * at least {@code gvlBoundRatio} of service time): none is added then, and those running are removed.
     */
    Decision apply(Observation o, Decision d) {
        if (gvlBound(o) && o.bridgeUnits() > 0) {
            return new Decision(d.delta(), -o.bridgeUnits(), d.tier(), d.reason() + "; bridge: remove "
                    + o.bridgeUnits() + " slots, " + gvlBoundReason(o), d.next());
        }
        if (d.delta() > 0) {
            double lead = o.deadTimeMs() - o.bridgeDeadTimeMs();
            String why;
            int add = 0;
            int onTheWay = (o.bootingUnits() + d.delta()) * o.slotsPerUnit();
            int want = Math.min(onTheWay, p.maxBridgeSlots());
            if (Double.isNaN(lead) || lead < p.bridgeMinLeadMs()) {
                why = "bridge: none, its dead time " + TieredPolicy.fmt(o.bridgeDeadTimeMs()) + " ms leads the units' "
                        + TieredPolicy.fmt(o.deadTimeMs()) + " ms by less than " + TieredPolicy.fmt(p.bridgeMinLeadMs()) + " ms";
            } else if (!o.bridgeGainKnown()) {
                why = "bridge: none, the gain of a bridge slot is unknown";
            } else if (gvlBound(o)) {
                why = "bridge: none, " + gvlBoundReason(o);
            } else if (!Double.isNaN(o.memAvailableMb()) && o.memAvailableMb() <= p.memReserveMb()) {
                why = "bridge: none, the memory guard allows none (" + TieredPolicy.fmt(o.memAvailableMb()) + " MiB available)";
            } else if (want <= o.bridgeUnits()) {
                why = "bridge: " + o.bridgeUnits() + " slots already cover the " + onTheWay + " slots on their way";
            } else {
                add = want - o.bridgeUnits();
                why = "bridge: add " + add + " slots for the " + onTheWay + " on their way"
                        + (want < onTheWay ? " (max " + p.maxBridgeSlots() + ")" : "") + ", ready "
                        + TieredPolicy.fmt(lead) + " ms sooner" + (o.bridgeSharesGvl() ? ", the GVL is free (requests wait "
                        + "for it " + TieredPolicy.fmt(o.gvlWaitRatio() * 100) + "% of their service time)" : "");
            }
            return new Decision(d.delta(), add, d.tier(), d.reason() + "; " + why, d.next());
        }
        if (o.bridgeUnits() > 0 && o.bootingUnits() == 0) {
            return new Decision(d.delta(), -o.bridgeUnits(), d.tier(), d.reason() + "; bridge: remove "
                    + o.bridgeUnits() + " slots, no unit is booting", d.next());
        }
        return d;
    }

    /**
     * Whether a bridge slot would only wait for its process's GVL: it shares the GVL, the wait is measured,
     * and requests spend at least {@code gvlBoundRatio} of their service time waiting for it (the lock is
     * busy with the running threads' Ruby code; one more thread adds a waiter, not capacity).
     */
    private boolean gvlBound(Observation o) {
        return o.bridgeSharesGvl() && o.bridgeGainKnown() && !Double.isNaN(o.gvlWaitRatio())
                && o.gvlWaitRatio() >= p.gvlBoundRatio();
    }

    private String gvlBoundReason(Observation o) {
        return "the GVL is the bottleneck: requests wait for it " + TieredPolicy.fmt(o.gvlWaitRatio() * 100)
                + "% of their service time (at least " + TieredPolicy.fmt(p.gvlBoundRatio() * 100) + "%)";
    }
}
