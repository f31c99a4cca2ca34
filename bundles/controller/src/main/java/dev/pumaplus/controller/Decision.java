/*
 * What the policy decided at one tick and why: the change in units (0 when it declined), the tier, a
 * human-readable reason and the state to carry into the next tick; with a bridge actuator, also the change in
 * bridge slots. The driver applies it to the actuator;
 * replay compares it with the logged one.
 */
package dev.pumaplus.controller;

/**
 * One decision. Every decision has a reason, including the declined ones ("breach for 1 of 2 ticks",
 * "3 units booting cover the need of 5"): the log is how a policy gets tuned.
 *
 * @param delta       primary units to add (&gt; 0) or remove (&lt; 0); 0 = no change
 * @param bridgeDelta bridge slots to add (&gt; 0) or remove (&lt; 0); 0 = no change, always 0 with no bridge
 * @param tier        the tier the observation fell in
 * @param reason      why, in one line
 * @param next        the state for the next tick
 */
public record Decision(int delta, int bridgeDelta, String tier, String reason, State next) {

    /** A decision that leaves the bridge as it is. */
    public Decision(int delta, String tier, String reason, State next) {
        this(delta, 0, tier, reason, next);
    }

    /** {@code add}, {@code remove} or {@code none} for the primary units, as written in the decision log. */
    public String action() {
        return delta > 0 ? "add" : delta < 0 ? "remove" : "none";
    }
}
