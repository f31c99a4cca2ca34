/*
 * What one ReplicaSimulator run measured: the HPA's decision at every sync, and every request's queue time
 * across the replicas; the numbers the replica tests assert on.
 */
package dev.pumaplus.controller.sim;

import java.util.List;

/**
 * @param syncs    every HPA sync in order
 * @param requests every request across the replicas (arrival on the balancer's clock, s; queue time, s: −1
 *                 when shed, NaN when never served), merged as one {@link SimResult} for its quantiles
 */
public record ReplicaResult(List<Sync> syncs, SimResult requests) {

    /**
     * One HPA sync.
     *
     * @param atS        the balancer's clock, s
     * @param replicas   spec.replicas after the sync
     * @param ready      replicas in the balancer's rotation at the sync
     * @param meanMetric the mean of the reported metric over the ready replicas
     */
    public record Sync(double atS, int replicas, int ready, double meanMetric) {
    }

    /** Times the replica count turned round (grew after shrinking, or shrank after growing). */
    public int reversals() {
        int direction = 0;
        int reversals = 0;
        for (int i = 1; i < syncs.size(); i++) {
            int d = Integer.signum(syncs.get(i).replicas() - syncs.get(i - 1).replicas());
            if (d != 0) {
                if (direction != 0 && d != direction) {
                    reversals++;
                }
                direction = d;
            }
        }
        return reversals;
    }

    /**
     * The first sync time in [from, to) from which the replica count is {@code replicas} at every sync up to
     * {@code to}; +Infinity when it is not there at the last sync before {@code to}.
     */
    public double settledAt(int replicas, double from, double to) {
        double settled = Double.POSITIVE_INFINITY;
        for (Sync s : syncs) {
            if (s.atS() < from || s.atS() >= to) {
                continue;
            }
            if (s.replicas() != replicas) {
                settled = Double.POSITIVE_INFINITY;
            } else if (Double.isInfinite(settled)) {
                settled = s.atS();
            }
        }
        return settled;
    }

    /** The most replicas any sync in [from, to) set. */
    public int maxReplicas(double from, double to) {
        return syncs.stream().filter(s -> s.atS() >= from && s.atS() < to).mapToInt(Sync::replicas).max()
                .orElseThrow();
    }

    /** The fewest replicas any sync in [from, to) set. */
    public int minReplicas(double from, double to) {
        return syncs.stream().filter(s -> s.atS() >= from && s.atS() < to).mapToInt(Sync::replicas).min()
                .orElseThrow();
    }
}
