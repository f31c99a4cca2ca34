/*
 * What the policy decided at one tick and why: the change in units (0 when it declined), the tier, a
 * human-readable reason and the state to carry into the next tick. The driver applies it to the actuator;
 * replay compares it with the logged one.
 */
package dev.pumaplus.controller;

/**
 * One decision. Every decision has a reason, including the declined ones ("breach for 1 of 2 ticks",
 * "3 units booting cover the need of 5"): the log is how a policy gets tuned.
 *
 * @param delta  units to add (&gt; 0) or remove (&lt; 0); 0 = no change
 * @param tier   the tier the observation fell in
 * @param reason why, in one line
 * @param next   the state for the next tick
 */
public record Decision(int delta, String tier, String reason, State next) {

    /** {@code add}, {@code remove} or {@code none}, as written in the decision log. */
    public String action() {
        return delta > 0 ? "add" : delta < 0 ? "remove" : "none";
    }
}
