/*
 * The one interface every autoscaling policy implements: a pure function from (state, observation) to a
 * decision. The driver ticks it once a second; replay and the simulator call it the same way.
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

    /** Decides one tick. Pure; never null. */
    Decision decide(State state, Observation observation);
}
