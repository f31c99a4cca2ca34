/*
 * Kubernetes' HorizontalPodAutoscaler (autoscaling/v2) as its documentation and replica calculator state it,
 * on one Pods metric with an AverageValue target: the layer above the replicas in ReplicaSimulator, one
 * recommendation per sync period. Pure apart from the recommendations and changes it remembers itself.
 */
package dev.pumaplus.controller.sim;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * One {@link #sync} per sync period (kube-controller-manager's {@code --horizontal-pod-autoscaler-sync-period},
 * 15 s), in three steps, as the HPA controller does them:
 * <ol>
 *   <li><b>Replica calculation</b>: with every pod reporting, usage ratio r = mean(metric) / target, and the
 *       recommendation is the current count when |1 − r| ≤ tolerance, else ceil(r · pods reporting) (the
 *       documented desired = ceil(current × metric / target)). With pods not reporting yet (booting: no
 *       metric), they are counted as 0 when r &gt; 1 and as the target when r &lt; 1, r is recomputed over all
 *       pods, and nothing changes if that flips the direction or lands within tolerance.</li>
 *   <li><b>Stabilization</b>: the recommendations of the last {@code scaleUpWindowS} bound a scale-up (their
 *       minimum), those of the last {@code scaleDownWindowS} bound a scale-down (their maximum).</li>
 *   <li><b>Rate policies</b> (the API's defaults): up by at most max(4 pods, 100 %) and down by at most 100 %
 *       per 15 s period, counted from the replicas at the period's start; then min/max replicas.</li>
 * </ol>
 * Not thread-safe; one instance per simulated HPA.
 */
public final class HorizontalScaler {

    /**
     * @param minReplicas      spec.minReplicas
     * @param maxReplicas      spec.maxReplicas
     * @param target           the metric's target.averageValue
     * @param tolerance        {@code --horizontal-pod-autoscaler-tolerance}, default 0.1
     * @param syncPeriodS      {@code --horizontal-pod-autoscaler-sync-period}, default 15 s
     * @param scaleUpWindowS   behavior.scaleUp.stabilizationWindowSeconds, default 0
     * @param scaleDownWindowS behavior.scaleDown.stabilizationWindowSeconds, default 300
     */
    public record Params(int minReplicas, int maxReplicas, double target, double tolerance, double syncPeriodS,
                         double scaleUpWindowS, double scaleDownWindowS) {

        /** Kubernetes' defaults around the given bounds and target. */
        public static Params defaults(int minReplicas, int maxReplicas, double target) {
            return new Params(minReplicas, maxReplicas, target, 0.1, 15, 0, 300);
        }
    }

    /** The default rate policies' period, s: behavior.scale{Up,Down}.policies[*].periodSeconds. */
    static final double POLICY_PERIOD_S = 15;
    /** The default scale-up policies: 4 pods or 100 %, whichever allows more. */
    static final int SCALE_UP_PODS = 4;
    static final double SCALE_UP_PERCENT = 100;
    /** The default scale-down policy: 100 %. */
    static final double SCALE_DOWN_PERCENT = 100;

    private final Params params;
    private final Deque<double[]> recommendations = new ArrayDeque<>(); // {time s, replicas}
    private final Deque<double[]> changes = new ArrayDeque<>(); // {time s, replicas added (< 0: removed)}

    public HorizontalScaler(Params params) {
        this.params = params;
    }

    public Params params() {
        return params;
    }

    /**
     * One sync.
     *
     * @param t        now, s (non-decreasing over calls)
     * @param current  the scale target's replicas now (spec.replicas)
     * @param reported the metric of each pod that reports one (NaN values count as not reported)
     * @param booting  pods counted in {@code current} that report no metric yet
     * @return the replicas to set
     */
    public int sync(double t, int current, double[] reported, int booting) {
        int recommended = calculate(current, reported, booting);
        recommendations.addLast(new double[] {t, recommended});
        double keep = Math.max(params.scaleUpWindowS(), params.scaleDownWindowS());
        while (recommendations.peekFirst()[0] < t - keep) { // the one just added always stays
            recommendations.pollFirst();
        }
        int up = recommended;
        int down = recommended;
        for (double[] r : recommendations) {
            if (r[0] > t - params.scaleUpWindowS()) {
                up = Math.min(up, (int) r[1]);
            }
            if (r[0] > t - params.scaleDownWindowS()) {
                down = Math.max(down, (int) r[1]);
            }
        }
        int stabilized = Math.min(Math.max(current, up), down);
        int next = Math.max(params.minReplicas(), Math.min(params.maxReplicas(), rateLimited(t, current, stabilized)));
        if (next != current) {
            changes.addLast(new double[] {t, next - current});
        }
        return next;
    }

    /** Step 1: the replica calculator's recommendation, before stabilization and rate policies. */
    int calculate(int current, double[] reported, int booting) {
        int n = 0;
        double sum = 0;
        for (double v : reported) {
            if (!Double.isNaN(v)) {
                n++;
                sum += v;
            }
        }
        int missing = booting + reported.length - n;
        if (n == 0) {
            return current;
        }
        double ratio = sum / n / params.target();
        if (missing == 0) {
            return Math.abs(1 - ratio) <= params.tolerance() ? current : (int) Math.ceil(ratio * n - 1e-9);
        }
        // Pods without a metric: assume the least change, 0 on a scale-up, the target on a scale-down.
        double filled = sum + (ratio < 1 ? params.target() * missing : 0);
        double newRatio = filled / (n + missing) / params.target();
        if (Math.abs(1 - newRatio) <= params.tolerance() || (ratio < 1 && newRatio > 1)
                || (ratio > 1 && newRatio < 1)) {
            return current;
        }
        int replicas = (int) Math.ceil(newRatio * (n + missing) - 1e-9);
        if ((newRatio < 1 && replicas > current) || (newRatio > 1 && replicas < current)) {
            return current;
        }
        return replicas;
    }

    private int rateLimited(double t, int current, int desired) {
        while (!changes.isEmpty() && changes.peekFirst()[0] + POLICY_PERIOD_S <= t) {
            changes.pollFirst();
        }
        int changedInPeriod = 0;
        for (double[] c : changes) {
            changedInPeriod += (int) c[1];
        }
        int periodStart = current - changedInPeriod;
        if (desired > current) {
            int limit = Math.max(periodStart + SCALE_UP_PODS,
                    (int) Math.ceil(periodStart * (1 + SCALE_UP_PERCENT / 100)));
            return Math.min(desired, limit);
        }
        if (desired < current) {
            int limit = (int) Math.floor(periodStart * (1 - SCALE_DOWN_PERCENT / 100));
            return Math.max(desired, limit);
        }
        return current;
    }
}
