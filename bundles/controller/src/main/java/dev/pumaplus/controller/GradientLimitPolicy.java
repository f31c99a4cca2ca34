/*
 * The default concurrency limiter for fiber slots (docs/CONTROL.md, "The concurrency limit"): a gradient
 * limiter after Netflix's concurrency-limits (its windowed Gradient, with Vegas's no-load minimum). Once a
 * window it compares the slots' mean service time with the no-load minimum and moves the limit on how many
 * requests may run at once: up while service time stays near the minimum, down as it inflates.
 */
package dev.pumaplus.controller;

import java.util.Locale;
import java.util.Map;

/**
 * Per window, with L the limit, S the window's mean slot time and S₀ the no-load baseline (the lowest window
 * mean since the last probe):
 * <pre>
 *   gradient g = clamp(tolerance · S₀ / S, 0.5, 1)
 *   target     = L · g + √L                       (√L: the queue the dependency may hold)
 *   L'         = target                           when target ≥ L (growth is not smoothed)
 *              = L − smoothing · (L − target)     when it shrinks (at most smoothing / 2 per window)
 *   L'         clamped to [minLimit, slots]; the host runs ⌊L'⌋
 * </pre>
 * A dependency whose latency grows in proportion to the calls in flight beyond K (S = S₀ · c / K) settles
 * where g = 1 − 1/√L, i.e. L = tolerance · K + √L: about K + √K.
 *
 * <p>Guards: a window with fewer than {@code minSamples} finished requests is not judged by itself (its mean
 * is noise): its requests are carried in the state and judged with the next windows' once there are
 * enough (so a low limit, whose windows are all thin, still moves); nor does a window in which at most
 * L − √L ran at once (app-limited: the limit did not bind, so
 * the window says nothing about it, and growing it would only make room for a burst). The first window
 * starts from the limit in force, which the host sets to the slot count: every slot may run until a
 * window shows the service time inflating, so a light load never meets a limit.
 *
 * <p>Probe: the baseline must be measured at a concurrency the dependency takes without inflating. A first
 * window that binds the limit before any baseline was seen (a host that boots into a flood) would take an
 * inflated mean for the no-load one; and the baseline only falls, so when the dependency itself becomes
 * slower every window reads as inflation and the gradient would hold the limit low for good. In both cases
 * the limit drops to √L and the baseline is forgotten: the next windows, at that low concurrency, measure
 * it again (the lowest of their means), and the limit grows back from there. The second case is told by
 * {@code probeWindows} windows in a row above {@code staleRatio} · S₀. No randomness, no clock: the window
 * count is the state's.
 */
public final class GradientLimitPolicy implements LimitPolicy {

    /** The policy id in the decision log. */
    public static final String ID = "gradient/1";

    private final Params p;

    public GradientLimitPolicy(Params params) {
        this.p = params.validated();
    }

    /** The policy with every default (docs/CONTROL.md). */
    public static GradientLimitPolicy defaults() {
        return new GradientLimitPolicy(Params.DEFAULTS);
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public Map<String, Object> params() {
        return p.toMap();
    }

    @Override
    public long windowMs() {
        return p.windowMs();
    }

    @Override
    public LimitDecision decide(LimitState state, LimitObservation o) {
        double limit = Double.isNaN(state.limit()) ? o.limit() : state.limit();
        if (o.slots() < 1) {
            return new LimitDecision(whole(limit), "no slot is live: limit stays " + whole(limit), state);
        }
        limit = clamp(limit, p.minLimit(), o.slots());
        // A thin window is judged together with the thin ones before it (their sums carried in the state).
        int completed = state.pendingCompleted() + o.completed();
        double slotMs = state.pendingSlotMs() + (o.completed() == 0 ? 0 : o.completed() * o.meanServiceMs());
        int peak = Math.max(state.pendingPeak(), o.peakInFlight());
        if (completed < p.minSamples()) {
            return new LimitDecision(whole(limit), completed + " finished since the last judged window, at least "
                    + p.minSamples() + " needed: limit stays " + whole(limit), new LimitState(limit,
                    state.baselineMs(), state.unconfirmedWindows(), state.measuring(), completed, slotMs, peak));
        }
        double s = slotMs / completed;
        double queue = Math.sqrt(limit);
        boolean binds = peak + queue >= limit;
        if (Double.isNaN(state.baselineMs()) && !state.measuring() && binds) {
            return probe(limit, o, "slot time " + ms(s) + " ms with the limit bound before any no-load time was"
                    + " seen");
        }
        double baseline = Double.isNaN(state.baselineMs()) || s < state.baselineMs() ? s : state.baselineMs();
        int unconfirmed = s > p.staleRatio() * baseline ? state.unconfirmedWindows() + 1 : 0;
        if (unconfirmed >= p.probeWindows()) {
            return probe(limit, o, "slot time " + ms(s) + " ms above " + num(p.staleRatio()) + " × the no-load "
                    + ms(baseline) + " ms for " + unconfirmed + " windows");
        }
        if (!binds) {
            return new LimitDecision(whole(limit), "app-limited: at most " + peak + " ran at once (slot time "
                    + ms(s) + " ms, no-load " + ms(baseline) + " ms): limit stays " + whole(limit),
                    new LimitState(limit, baseline, unconfirmed, false));
        }
        double gradient = clamp(p.tolerance() * baseline / s, 0.5, 1.0);
        double target = limit * gradient + queue;
        double next = target >= limit ? target : limit - p.smoothing() * (limit - target);
        next = clamp(next, p.minLimit(), o.slots());
        return new LimitDecision(whole(next), "slot time " + ms(s) + " ms, no-load " + ms(baseline)
                + " ms: gradient " + num(gradient) + ", limit " + whole(limit) + " → " + whole(next)
                + (next == o.slots() ? " (every slot)" : ""), new LimitState(next, baseline, unconfirmed, false));
    }

    /** The limit cut to √L and the baseline forgotten, to measure it at that concurrency. */
    private LimitDecision probe(double limit, LimitObservation o, String why) {
        double probe = clamp(Math.sqrt(limit), p.minLimit(), o.slots());
        return new LimitDecision(whole(probe), "probe: " + why + ": limit " + whole(limit) + " → " + whole(probe)
                + " to measure it", new LimitState(probe, Double.NaN, 0, true));
    }

    /** The integer limit the host runs: ⌊limit⌋, at least 1. */
    private static int whole(double limit) {
        return Math.max(1, (int) Math.floor(limit));
    }

    private static double clamp(double v, double lo, double hi) {
        return Math.max(lo, Math.min(hi, v));
    }

    private static String ms(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }

    private static String num(double v) {
        return String.format(Locale.ROOT, "%.3f", v).replaceAll("0+$", "").replaceAll("\\.$", "");
    }

    /**
     * The limiter's parameters (docs/CONTROL.md, "The concurrency limit", defaults there too).
     *
     * @param windowMs      the window, ms: one decision per window
     * @param minLimit      the lowest limit, at least 1
     * @param minSamples    finished requests a window needs to move the limit
     * @param tolerance     how much above the baseline the window's slot time may be before the limit
     *                      shrinks, as a factor (1: any inflation shrinks it)
     * @param smoothing     the share of a shrink applied per window, (0, 1]
     * @param staleRatio    a window above this × the baseline does not confirm it
     * @param probeWindows  unconfirmed windows in a row after which the baseline is measured again
     */
    public record Params(int windowMs, int minLimit, int minSamples, double tolerance,
                         double smoothing, double staleRatio, int probeWindows) {

        public static final Params DEFAULTS = new Params(250, 1, 10, 1.0, 0.2, 1.5, 40);

        Params validated() {
            require(windowMs >= 10, "windowMs must be at least 10");
            require(minLimit >= 1, "minLimit must be at least 1");
            require(minSamples >= 1, "minSamples must be at least 1");
            require(tolerance >= 1, "tolerance must be at least 1");
            require(smoothing > 0 && smoothing <= 1, "smoothing must be in (0, 1]");
            require(staleRatio > tolerance, "staleRatio must exceed tolerance");
            require(probeWindows >= 1, "probeWindows must be at least 1");
            return this;
        }

        private static void require(boolean ok, String what) {
            if (!ok) {
                throw new IllegalArgumentException("gradient limit params: " + what);
            }
        }

        /** Name → value, in declaration order (written into every log line). */
        public Map<String, Object> toMap() {
            return RecordParams.toMap(this);
        }

        /** The inverse of {@link #toMap}; a missing name takes its default. */
        public static Params fromMap(Map<String, ?> m) {
            return RecordParams.fromMap(Params.class, m, DEFAULTS, "gradient limit params");
        }
    }
}
