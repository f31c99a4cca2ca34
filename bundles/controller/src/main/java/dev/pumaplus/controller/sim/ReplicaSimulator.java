/*
 * Scaling past one machine, simulated: N puma-plus replicas behind a round-robin load balancer, each one the
 * controller's Simulator fed by the balancer, and Kubernetes' HPA (HorizontalScaler) above them adding and
 * removing replicas on one /metrics gauge. Seeded and on a virtual clock, so every run is reproducible.
 */
package dev.pumaplus.controller.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The model. Arrivals are one Poisson stream at the balancer, at the offered rate of the {@code load}
 * phases; each goes to the next replica in rotation among the ready ones. A replica is a fed
 * {@link Simulator} of the {@code replica} template (its slots, slot times, shedding, and a policy that
 * keeps its units fixed, as a pod with fixed workers sized to its CPU request), on its own clock that
 * starts when it becomes ready. Every sync period the HPA reads the metric of each ready replica, counts
 * the booting ones as not reporting, and sets the replica count; a new replica joins the rotation
 * {@code readyDelayS} later (image, JVM and app boot, readiness probe), a removed one leaves the rotation
 * at once and finishes what it holds. Metrics are read at the sync instant (no scrape delay).
 *
 * <p>Not thread-safe; one run per instance.
 */
public final class ReplicaSimulator {

    private final Scenario load;
    private final Scenario replica;
    private final double readyDelayS;
    private final ScalingMetric metric;
    private final HorizontalScaler hpa;
    private final long seed;
    private final SplittableRandom arrivals;

    private final List<Replica> booting = new ArrayList<>();
    private final List<Replica> ready = new ArrayList<>();
    private final List<Replica> all = new ArrayList<>();
    private final List<ReplicaResult.Sync> syncs = new ArrayList<>();
    private int next;

    /**
     * @param load            the offered load at the balancer: only its phases are used
     * @param replica         one replica: service time, slots per unit, units, shed limit (its phases are not
     *                        used: it is fed by the balancer)
     * @param initialReplicas replicas ready at t = 0
     * @param readyDelayS     from the HPA's decision to the replica in rotation, s
     * @param metric          the gauge the HPA averages
     * @param hpa             the HPA's bounds, target (in the metric's unit) and behavior
     * @param seed            arrivals are drawn from it, each replica's slot times from a seed derived from it
     */
    public ReplicaSimulator(Scenario load, Scenario replica, int initialReplicas, double readyDelayS,
                            ScalingMetric metric, HorizontalScaler.Params hpa, long seed) {
        this.load = load;
        this.replica = new Scenario(replica.name(), List.of(new Scenario.Phase(0, load.seconds())), replica.service(),
                replica.slotsPerUnit(), replica.initialUnits(), replica.deadTimeS(), replica.memPerUnitMb(),
                replica.shedLimitMs());
        this.readyDelayS = readyDelayS;
        this.metric = metric;
        this.hpa = new HorizontalScaler(hpa);
        this.seed = seed;
        this.arrivals = new SplittableRandom(seed);
        for (int i = 0; i < initialReplicas; i++) {
            booting.add(new Replica(all.size(), 0));
            all.add(booting.getLast());
        }
    }

    /** Runs the load to its end, then lets every replica finish what it holds. */
    public ReplicaResult run() {
        double end = load.seconds();
        double sync = hpa.params().syncPeriodS();
        double t = 0;
        while (true) {
            t = nextArrival(t);
            double until = Math.min(t, end);
            while (sync <= until) {
                join(sync);
                sync(sync);
                sync += hpa.params().syncPeriodS();
            }
            if (t >= end) {
                break;
            }
            join(t);
            Replica r = ready.get(next++ % ready.size());
            r.sim.offer(t - r.readyAt);
        }
        for (Replica r : all) {
            if (r.sim != null) {
                r.sim.advanceTo(end + 120 - r.readyAt);
            }
        }
        return new ReplicaResult(List.copyOf(syncs), merged());
    }

    /** The next arrival after {@code t} at the balancer, s; Poisson, redrawn at each change of rate. */
    private double nextArrival(double t) {
        while (true) {
            double rate = load.rateAt(t);
            double boundary = load.phaseEnd(t);
            if (rate <= 0) {
                if (Double.isInfinite(boundary)) {
                    return Double.POSITIVE_INFINITY;
                }
                t = boundary;
                continue;
            }
            double at = t - Math.log(1 - arrivals.nextDouble()) / rate;
            if (at < boundary) {
                return at;
            }
            t = boundary;
        }
    }

    /** Puts every replica whose ready time has come into the rotation. */
    private void join(double t) {
        for (var it = booting.iterator(); it.hasNext(); ) {
            Replica r = it.next();
            if (r.readyAt <= t) {
                it.remove();
                r.sim = new Simulator(replica, Compare.staticPolicy(replica.initialUnits()),
                        seed * 1_000_003L + r.index, null);
                r.sim.start();
                ready.add(r);
            }
        }
    }

    private void sync(double t) {
        double[] reported = new double[ready.size()];
        for (int i = 0; i < reported.length; i++) {
            Replica r = ready.get(i);
            r.sim.advanceTo(t - r.readyAt);
            reported[i] = metric.read(r.sim);
        }
        int current = ready.size() + booting.size();
        int desired = hpa.sync(t, current, reported, booting.size());
        for (int i = current; i < desired; i++) {
            booting.add(new Replica(all.size(), t + readyDelayS));
            all.add(booting.getLast());
        }
        for (int i = desired; i < current; i++) {
            // As a ReplicaSet scales down: a replica not yet ready first, then the newest ready one.
            if (!booting.isEmpty()) {
                all.remove(booting.removeLast());
            } else {
                ready.removeLast();
            }
        }
        double mean = Arrays.stream(reported).filter(v -> !Double.isNaN(v)).average().orElse(Double.NaN);
        syncs.add(new ReplicaResult.Sync(t, desired, reported.length, mean));
    }

    /** Every replica's requests on the balancer's clock, in one SimResult (units: replicas; per second: not kept, see the syncs). */
    private SimResult merged() {
        List<double[]> rows = new ArrayList<>();
        int shed = 0;
        for (Replica r : all) {
            if (r.sim == null) {
                continue; // still booting at the end: it never served
            }
            SimResult one = r.sim.result();
            shed += one.shed();
            for (int i = 0; i < one.arrivalAt().length; i++) {
                rows.add(new double[] {one.arrivalAt()[i] + r.readyAt, one.waited()[i]});
            }
        }
        rows.sort((a, b) -> Double.compare(a[0], b[0]));
        double[] at = rows.stream().mapToDouble(row -> row[0]).toArray();
        double[] waited = rows.stream().mapToDouble(row -> row[1]).toArray();
        int max = syncs.stream().mapToInt(ReplicaResult.Sync::replicas).max().orElse(0);
        double mean = syncs.stream().mapToInt(ReplicaResult.Sync::replicas).average().orElse(0);
        return new SimResult(load, metric.family(), at, waited, shed, 0, 0, max, mean, List.of());
    }

    /** One replica: its index (for its seed), when it is (or will be) ready, and its simulator once it is. */
    private static final class Replica {
        final int index;
        final double readyAt;
        Simulator sim;

        Replica(int index, double readyAt) {
            this.index = index;
            this.readyAt = readyAt;
        }
    }
}
