/*
 * The one interface every autoscaling policy implements: a pure function from (state, observation) to a
 * decision. The driver ticks it once a second (and asks it between ticks when the queue is hot, if it
 * wants that); replay and the simulator call it the same way.
 */
package dev.pumaplus.controller;

import java.util.Map;

/**
 * A scaling policy. Implementations must be pure: the result depends only on the arguments and the
 * policy's own immutable parameters — no clock, no I/O, no randomness, no mutable fields — so a decision
 * log line can be replayed to the same decision. Thread-safe by construction.
 */
public interface Policy {

    /** Identifies the policy and its version in the decision log, e.g. {@code tiered/1}. */
    String id();

    /** The parameters, by name, as written into every log line (replay rebuilds the policy from them). */
    Map<String, Object> params();

    /**
     * Decides one tick, or an alarm ({@link Observation#alarm()}). Pure; never null. An alarm that changes
     * nothing must return {@code state} itself as the next state.
     */
    Decision decide(State state, Observation observation);

    /**
     * How long the oldest waiting request must have waited, with every slot busy, for the driver to ask
     * for an alarm's decision between ticks, ms; NaN (the default) for a policy that decides at ticks only.
     */
    default double alarmThresholdMs() {
        return Double.NaN;
    }
}
