/*
 * What one simulator run measured: every request's arrival and queue time, shed count, decisions and the
 * unit count over time; and the derived numbers the scenario tests assert on and the comparison table
 * prints.
 */
package dev.pumaplus.controller.sim;

import java.util.Arrays;
import java.util.List;

/**
 * @param waited        queue time of each request, s; -1 when it was shed, NaN when it never ran
 * @param adds          decisions that added units (alarms' included)
 * @param alarms        alarms' decisions that changed something (between ticks)
 * @param meanUnits     unit-seconds over the scenario's length / length
 * @param unitsBySecond units (expected) after each tick's decision
 */
public record SimResult(Scenario scenario, String policyId, double[] arrivalAt, double[] waited, int shed,
                        int adds, int alarms, int maxUnits, double meanUnits, List<Integer> unitsBySecond) {

    /** Queue time p-quantile over requests that arrived in [from, to) and were served, ms. */
    public double queueQuantileMs(double p, double from, double to) {
        double[] w = served(from, to);
        return Simulator.percentileMs(w, p);
    }

    private double[] served(double from, double to) {
        double[] w = new double[waited.length];
        int n = 0;
        for (int i = 0; i < waited.length; i++) {
            if (arrivalAt[i] >= from && arrivalAt[i] < to && waited[i] >= 0) {
                w[n++] = waited[i];
            }
        }
        w = Arrays.copyOf(w, n);
        Arrays.sort(w);
        return w;
    }

    /** Requests that arrived and were never dispatched before the run gave up. */
    public long unserved() {
        return Arrays.stream(waited).filter(Double::isNaN).count();
    }

    /**
     * Seconds from {@code from} until the queue p99 of requests arriving in each following whole second up
     * to {@code to} stays at or under {@code targetMs}; +Infinity when the last second is still over.
     */
    public double recoverySeconds(double from, double to, double targetMs) {
        int seconds = (int) Math.round(to - from);
        int lastBad = -1;
        for (int s = 0; s < seconds; s++) {
            if (queueQuantileMs(0.99, from + s, from + s + 1) > targetMs) {
                lastBad = s;
            }
        }
        return lastBad == seconds - 1 ? Double.POSITIVE_INFINITY : lastBad + 1;
    }
}
