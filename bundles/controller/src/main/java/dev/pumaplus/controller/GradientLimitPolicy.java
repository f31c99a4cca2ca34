/*
 * The default concurrency limiter for fiber slots (docs/CONTROL.md, "The concurrency limit"): a gradient
 * limiter after Netflix's concurrency-limits (its windowed Gradient, with Vegas's no-load time). Once a
 * window it compares the slots' mean service time with the no-load baseline and moves the limit on how many
 * requests may run at once: up while service time stays near the baseline, down as it inflates.
 */
package dev.pumaplus.controller;

import java.util.Locale;
import java.util.Map;

/**
 * Per window in which the limit binds, with L the limit, S the window's mean slot time (less what the workers
 * measured the requests waiting for their thread) and S₀ the no-load baseline:
 * <pre>
 *   gradient g = clamp(tolerance · S₀ / S, 0.5, 1)
 *   target     = 2 · L                            when S ≤ doublingRatio · tolerance · S₀ and requests wait
 *              = L · g + √L                       otherwise (√L: the queue the dependency may hold)
 *   L'         = target                           when target ≥ L (growth is not smoothed)
 *              = L − smoothing · (L − target)     when it shrinks (at most smoothing / 2 per window)
 *   L'         clamped to [minLimit, slots]; the host runs ⌊L'⌋
 * </pre>
 * A dependency whose latency grows in proportion to the calls in flight beyond K (S = S₀ · c / K) settles
 * where g = 1 − 1/√L, i.e. L = tolerance · K + √L: about K + √K.
 *
 * <p>Guards: a window with fewer than {@code minSamples} finished requests is not judged by itself (its mean
 * is noise): its requests are carried in the state and judged with the next windows' once there are
 * enough (so a low limit, whose windows are all thin, still moves). A window in which at most L − √L ran at
 * once does not move the limit (app-limited: the limit did not bind, so the window says nothing about it,
 * and growing it would only make room for a burst). The first window starts from the limit in force, which
 * the host sets to the slot count: every slot may run until a window shows the service time inflating. A
 * window whose requests waited at least {@code coreBoundShare} of their slot for their worker's thread does
 * not shrink the limit: the busy core inflates S (the part of its delay the worker cannot measure), and a
 * lower limit would only idle it.
 *
 * <p>The baseline. Only a window at low concurrency tells the no-load time; one at the limit may be
 * inflated by the limit itself. So: a window that binds the limit lowers S₀ to its mean; an app-limited
 * one moves it {@value #LIGHT_WEIGHT} of the way down to its mean, and, if it is light (at most √L ran at
 * once, what a probe allows), either way. A light window whose mean is above {@code staleRatio} · S₀ has
 * found the baseline stale (the request mix changed, the dependency's no-load time grew) and replaces it:
 * a load that went quiet measures the new no-load time itself, and the limit stays where it was.
 *
 * <p>Probe: a window that binds the limit with no baseline (a host that boots into a flood), or after
 * {@code probeWindows} windows in a row above {@code staleRatio} · S₀ (a baseline gone stale under a load
 * that never went light, or a dependency inflating far past its knee), cuts the limit to √L and forgets
 * S₀; the next {@value #MEASURE_WINDOWS} judged windows measure it (the lowest of their means). Then the
 * limit returns to what the window that started the probe shows: its limit L_p times
 * min(1, tolerance · S₀ / S_p), plus √L_p. A stale baseline gives L_p + √L_p back; an inflating dependency
 * gives K ≈ L_p · S₀ / S_p (the calls it took at its no-load time) plus its queue. No randomness, no clock:
 * the counts and the probe's origin are the state's.
 */
public final class GradientLimitPolicy implements LimitPolicy {

    /** The policy id in the decision log. */
    public static final String ID = "gradient/2";

    /**
     * Judged windows a probe measures the baseline over: the first after the cut still holds requests that
     * started before it, at the old concurrency; the second holds only the probe's.
     */
    static final int MEASURE_WINDOWS = 2;

    /**
     * How far a window the limit did not bind moves the baseline towards its own mean: a light one (no more
     * running at once than a probe allows) that confirms it, either way; any other, only down. Not all the
     * way, as a window that binds the limit does: the load decides how many such windows hold (often few,
     * in a quiet stretch many), and the lowest of many thin means lies well below their average, a gap that
     * would read as inflation once the load binds the limit.
     */
    static final double LIGHT_WEIGHT = 0.25;

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
                    state.baselineMs(), state.unconfirmedWindows(), state.probeWindowsLeft(), state.probeFromLimit(),
                    state.probeFromMs(), completed, slotMs, peak));
        }
        double s = slotMs / completed;
        if (state.probing()) {
            return measure(state, limit, s, o);
        }
        double queue = Math.sqrt(limit);
        boolean binds = peak + queue >= limit;
        double baseline = state.baselineMs();
        if (Double.isNaN(baseline) && binds) {
            return probe(limit, s, o, "slot time " + ms(s) + " ms with the limit bound before any no-load time was"
                    + " seen");
        }
        String remeasured = "";
        if (Double.isNaN(baseline)) {
            baseline = s;
        } else if (!binds && peak <= queue) {
            // No more ran at once than a probe would let run: the load made this window a probe itself. A
            // stale baseline is replaced by its mean; a current one follows the light windows' average.
            double was = baseline;
            baseline = s > p.staleRatio() * was ? s : was + LIGHT_WEIGHT * (s - was);
            remeasured = ", no-load " + (s > p.staleRatio() * was ? "measured again" : "followed") + " at light load"
                    + " (was " + ms(was) + " ms)";
        } else if (binds) {
            baseline = Math.min(baseline, s);
        } else if (s < baseline) {
            baseline += LIGHT_WEIGHT * (s - baseline);
        }
        int unconfirmed = s > p.staleRatio() * baseline ? state.unconfirmedWindows() + 1 : 0;
        if (!binds) {
            return new LimitDecision(whole(limit), "app-limited: at most " + peak + " ran at once (slot time "
                    + ms(s) + " ms, no-load " + ms(baseline) + " ms" + remeasured + "): limit stays "
                    + whole(limit), new LimitState(limit, baseline, unconfirmed));
        }
        if (unconfirmed >= p.probeWindows()) {
            return probe(limit, s, o, "slot time " + ms(s) + " ms above " + num(p.staleRatio()) + " × the no-load "
                    + ms(baseline) + " ms for " + unconfirmed + " windows, the limit bound");
        }
        double gradient = clamp(p.tolerance() * baseline / s, 0.5, 1.0);
        boolean doubles = s <= p.doublingRatio() * p.tolerance() * baseline && o.depth() > 0;
        double target = doubles ? 2 * limit : limit * gradient + queue;
        double waitShare = o.completed() > 0 ? o.meanThreadWaitMs() / (o.meanServiceMs() + o.meanThreadWaitMs())
                : Double.NaN;
        if (target < limit && waitShare >= p.coreBoundShare()) {
            // The requests waited that long for their worker's own thread: the core is what is busy, and what
            // of it the worker cannot measure (the hop, a socket ready before the select that saw it) still
            // inflates s. A lower limit would idle the core, not relieve a dependency.
            return new LimitDecision(whole(limit), "slot time " + ms(s) + " ms, no-load " + ms(baseline)
                    + " ms, but " + ms(o.meanThreadWaitMs()) + " ms more waiting for the worker's thread ("
                    + num(waitShare) + " of the slot, at least " + num(p.coreBoundShare()) + "): the core is busy,"
                    + " limit stays " + whole(limit), new LimitState(limit, baseline, unconfirmed));
        }
        double next = target >= limit ? target : limit - p.smoothing() * (limit - target);
        next = clamp(next, p.minLimit(), o.slots());
        return new LimitDecision(whole(next), "slot time " + ms(s) + " ms, no-load " + ms(baseline)
                + " ms: " + (doubles ? "at its no-load time with " + o.depth() + " waiting, doubled"
                : "gradient " + num(gradient)) + ", limit " + whole(limit) + " → " + whole(next)
                + (next == o.slots() ? " (every slot)" : ""), new LimitState(next, baseline, unconfirmed));
    }

    /**
     * The limit cut to √L and the baseline forgotten, to measure it at that concurrency for
     * {@value #MEASURE_WINDOWS} judged windows; the limit and the window's mean are kept for the return.
     */
    private LimitDecision probe(double limit, double s, LimitObservation o, String why) {
        double probe = clamp(Math.sqrt(limit), p.minLimit(), o.slots());
        return new LimitDecision(whole(probe), "probe: " + why + ": limit " + whole(limit) + " → " + whole(probe)
                + " to measure it", new LimitState(probe, Double.NaN, 0, MEASURE_WINDOWS, limit, s, 0, 0, 0));
    }

    /**
     * A window of a probe: its mean is a candidate for the baseline (the lowest wins). After the last, the
     * limit returns to what the window that started the probe says with the baseline measured: the limit
     * then, L_p, times min(1, tolerance · S₀ / S_p), plus √L_p. For a baseline that was only stale (a new mix,
     * a slower no-load time) that is L_p + √L_p; for a dependency that inflates it is the concurrency it took
     * without inflating, K ≈ L_p · S₀ / S_p, plus its queue.
     */
    private LimitDecision measure(LimitState state, double limit, double s, LimitObservation o) {
        double baseline = Double.isNaN(state.baselineMs()) ? s : Math.min(state.baselineMs(), s);
        int left = state.probeWindowsLeft() - 1;
        if (left > 0) {
            return new LimitDecision(whole(limit), "probe: slot time " + ms(s) + " ms at limit " + whole(limit)
                    + ", " + left + " more window" + (left == 1 ? "" : "s") + " to measure: limit stays "
                    + whole(limit), new LimitState(limit, baseline, 0, left, state.probeFromLimit(),
                    state.probeFromMs(), 0, 0, 0));
        }
        double from = state.probeFromLimit();
        // a mean of 0 (no time measured at all) says nothing inflated
        double shown = state.probeFromMs() > 0 ? Math.min(1.0, p.tolerance() * baseline / state.probeFromMs()) : 1;
        double back = from * shown + Math.sqrt(from);
        double next = clamp(Math.max(back, limit), p.minLimit(), o.slots());
        return new LimitDecision(whole(next), "probe measured no-load " + ms(baseline) + " ms ("
                + ms(state.probeFromMs()) + " ms at limit " + whole(from) + " before it): limit " + whole(limit)
                + " → " + whole(next),
                new LimitState(next, baseline, 0));
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
     * @param probeWindows  unconfirmed windows in a row after which a window that binds the limit probes
     * @param doublingRatio a window that binds the limit with requests waiting and slot time at most this ×
     *                      tolerance × the baseline doubles the limit
     * @param coreBoundShare a window whose requests waited at least this share of their slot (the wait
     *                      included) for their worker's thread does not shrink the limit, (0, 1]
     */
    public record Params(int windowMs, int minLimit, int minSamples, double tolerance,
                         double smoothing, double staleRatio, int probeWindows, double doublingRatio,
                         double coreBoundShare) {

        public static final Params DEFAULTS = new Params(250, 1, 10, 1.0, 0.2, 1.5, 8, 1.1, 0.1);

        Params validated() {
            RecordParams.Check check = new RecordParams.Check("gradient limit params");
            check.require(windowMs >= 10, "windowMs must be at least 10");
            check.require(minLimit >= 1, "minLimit must be at least 1");
            check.require(minSamples >= 1, "minSamples must be at least 1");
            check.require(tolerance >= 1, "tolerance must be at least 1");
            check.require(smoothing > 0 && smoothing <= 1, "smoothing must be in (0, 1]");
            check.require(staleRatio > tolerance, "staleRatio must exceed tolerance");
            check.require(probeWindows >= 1, "probeWindows must be at least 1");
            check.require(doublingRatio >= 1 && doublingRatio * tolerance < staleRatio,
                    "doublingRatio must be at least 1 and doublingRatio × tolerance below staleRatio");
            check.require(coreBoundShare > 0 && coreBoundShare <= 1, "coreBoundShare must be in (0, 1]");
            return this;
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
