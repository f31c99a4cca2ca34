/*
 * The service the controller bundle registers while it ticks: which policy is in charge and what it decided
 * lately, so the host's control app can report it (and show a swap of the controller bundle taking effect)
 * and its dashboard can list the decisions with their reasons.
 */
package dev.pumaplus.spi;

import java.util.List;

/** The running autoscaler. Thread-safe. */
public interface Autoscaler {

    /** The id of the policy deciding, e.g. {@code tiered/1}. */
    String policyId();

    /** Ticks decided since this autoscaler started. */
    long ticks();

    /** The last decision's one-line summary (action, units, reason), or null before the first tick. */
    String lastDecision();

    /**
     * The decisions of ticks numbered above {@code tick}, oldest first, out of the most recent ones this
     * autoscaler keeps (at least the last 60); {@code -1} asks for all it keeps. Tick numbers start at 0 for
     * each autoscaler, so a reader that follows a swapped controller starts again at {@code -1}.
     *
     * @since 2.0.0
     */
    default List<TickDecision> decisionsAfter(long tick) {
        return List.of();
    }

    /**
     * One tick's decision, as the decision log line has it.
     *
     * @param tick        the tick number (0 for the autoscaler's first)
     * @param epochMillis wall-clock time of the tick, ms since the epoch
     * @param policyId    the policy that decided
     * @param action      {@code add}, {@code remove} or {@code none} (primary units)
     * @param delta       primary units added (&gt; 0) or removed (&lt; 0)
     * @param bridgeDelta bridge slots added or removed; 0 without a bridge
     * @param units       primary units running when the tick observed them (before applying {@code delta})
     * @param tier        the tier the observation fell in
     * @param reason      why, in one line
     */
    record TickDecision(long tick, long epochMillis, String policyId, String action, int delta, int bridgeDelta,
                        int units, String tier, String reason) {
    }
}
