/*
 * The per-pod metrics an HPA can scale puma-plus replicas on, read from a replica's simulator exactly as
 * /metrics exposes them: the metric HorizontalScaler averages in ReplicaSimulator.
 */
package dev.pumaplus.controller.sim;

import java.util.function.ToDoubleFunction;

/** One /metrics gauge, by family name, and how a replica's simulator computes it. */
public enum ScalingMetric {

    /** {@code puma_plus_utilization}: λ·S/c over 10 s, proportional to the load each replica carries. */
    UTILIZATION("puma_plus_utilization", Simulator::utilization),
    /** {@code puma_plus_predicted_wait_seconds}: 0 with an idle slot, else (L+1)·S/c, s. */
    PREDICTED_WAIT("puma_plus_predicted_wait_seconds", Simulator::predictedWaitSeconds);

    private final String family;
    private final ToDoubleFunction<Simulator> read;

    ScalingMetric(String family, ToDoubleFunction<Simulator> read) {
        this.family = family;
        this.read = read;
    }

    /** The metric family's name on /metrics. */
    public String family() {
        return family;
    }

    /** The gauge's value on this replica now. */
    double read(Simulator replica) {
        return read.applyAsDouble(replica);
    }
}
