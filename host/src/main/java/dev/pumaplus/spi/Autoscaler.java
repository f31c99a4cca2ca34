/*
 * The service the controller bundle registers while it ticks: which policy is in charge, so the host's
 * control app can report it (and show a swap of the controller bundle taking effect).
 */
package dev.pumaplus.spi;

/** The running autoscaler. Thread-safe. */
public interface Autoscaler {

    /** The id of the policy deciding, e.g. {@code tiered/1}. */
    String policyId();

    /** Ticks decided since this autoscaler started. */
    long ticks();

    /** The last decision's one-line summary (action, units, reason), or null before the first tick. */
    String lastDecision();
}
