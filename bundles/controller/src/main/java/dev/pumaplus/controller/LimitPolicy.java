/*
 * The interface of a concurrency limiter for fiber slots: a pure function from (state, one window's
 * observation) to the limit. The limit driver calls it once a window; replay and the limit simulator call it
 * the same way.
 */
package dev.pumaplus.controller;

import java.util.Map;

/**
 * A concurrency limit policy. Implementations must be pure, like {@link Policy}: the result depends only on
 * the arguments and the policy's immutable parameters (no clock, no I/O, no randomness), so a decision log
 * line replays to the same limit. Thread-safe by construction.
 */
public interface LimitPolicy {

    /** Identifies the policy and its version in the decision log, e.g. {@code gradient/2}. */
    String id();

    /** The parameters, by name, as written into every log line (replay rebuilds the policy from them). */
    Map<String, Object> params();

    /** The window the driver observes, ms: how often {@link #decide} is called. */
    long windowMs();

    /** Decides the limit after one window. Pure; never null. */
    LimitDecision decide(LimitState state, LimitObservation observation);
}
