/*
 * The request timing aggregate of the host (docs/METRICS.md): every duration built from the timing points
 * T1..T6 is recorded here by the queue, the worker links and the protocols, and read by the control app's
 * /stats and /metrics. The measure step beside the request path (accept → ... → respond).
 */
package dev.pumaplus.host.measure;

import java.time.Instant;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.HdrHistogram.AbstractHistogram;
import org.HdrHistogram.Histogram;

/**
 * Durations, each a {@link TimingHistogram} in ns (definitions are exact; nothing else is called queue
 * time):
 * <ul>
 *   <li>{@link #queue}: T3 − T2b, runnable to dispatched, recorded once the worker link wrote the REQUEST;</li>
 *   <li>{@link #service}: T5 − T4 − body read, the app's time, for responses the worker completed;</li>
 *   <li>{@link #total}: T6 − T1, first byte to last byte sent, for responses completed and sent;</li>
 *   <li>{@link #bodyWait}: T2b − T2 + body read, headers parsed until the worker has the whole body (the
 *       client sending it), recorded when the worker's head arrives;</li>
 *   <li>{@link #upstream}: wall clock at T2 − {@code X-Request-Start}, the load balancer's queue, when the
 *       header is present and the difference is between 0 and 1 hour;</li>
 *   <li>{@link #slot}: T3 → the link idle again, how long a request occupies a slot (any outcome);</li>
 *   <li>{@link #gvlWait}: the GVL wait the worker measured between T4 and T5 (RESPONSE_HEAD's GVL_WAIT: Ruby
 *       3.2+), and {@link #gvlService}: the service time of the same requests, so that their ratio compares
 *       like with like; requests whose worker does not measure it (Ruby 3.1) are in neither.</li>
 * </ul>
 * Requests failed by the host (502, 503) or cancelled by their client are counted
 * ({@link #countStatus}, the dispatcher's {@code dropped}) but recorded as neither service nor total.
 *
 * <p>Windows: for each second, {@link #tick} moves what was recorded into slot {@code n mod 60} of a ring; a
 * window of w seconds is the last w completed slots (fewer right after start), so the 1 s, 10 s and 60 s
 * windows slide by a second and data older than 60 s rolls off. The same tick adds each second to the
 * cumulative histograms Prometheus reads. Arrival rate λ is the number of submits in the window divided by
 * the window's measured length.
 *
 * <p>No timer rolls the seconds: the first submit ({@link #arrived}) or reader after a second has ended
 * rolls it, and any further whole seconds as empty ones, on the grid of whole seconds from {@link #start}.
 * What was recorded since the last roll goes to the first second rolled (in a gap, it was recorded then:
 * the responses of the last requests), so a value can land in the second before its own when it is
 * recorded in the moment between a second's end and the first submit after it. A timer's tick woke the
 * host's event loop once a second: ~235 µs each on an idle host, a third wake-up per request at one
 * request a second (docs/BENCHMARKS.md, "Light load").
 *
 * <p>Prediction (Little's law, see {@link #predictedWaitNanos}): the wait of a request arriving now is 0 when
 * a slot is idle, else (L + 1) · S_slot / c with L the queue depth, c the live slots and S_slot the mean slot
 * time of the last 10 s (else 60 s, else since start).
 *
 * <p>Threading: the recording methods ({@code record} on the histograms, {@link #countStatus}, {@link #countShed},
 * {@link #countHealthCheck}, {@link #epochOffsetNanos}) are wait-free and allocation-free, for any thread.
 * {@link #arrived} is a clock read and a volatile read, for any thread, until a second has ended; rolling,
 * {@link #tick} and the readers synchronize on this object; they allocate little and run once a second or
 * per scrape.
 */
public final class QueueMetrics {

    /** Slots in the ring: the longest window, in seconds. */
    static final int SLOTS = 60;
    /** The window /stats reports at the top of {@code queue}, and that the prediction uses first. */
    public static final int MAIN_WINDOW_SECONDS = 10;
    private static final long SECOND_NANOS = 1_000_000_000L;

    public final TimingHistogram queue = new TimingHistogram(SLOTS);
    public final TimingHistogram service = new TimingHistogram(SLOTS);
    public final TimingHistogram total = new TimingHistogram(SLOTS);
    public final TimingHistogram bodyWait = new TimingHistogram(SLOTS);
    public final TimingHistogram upstream = new TimingHistogram(SLOTS);
    public final TimingHistogram slot = new TimingHistogram(SLOTS);
    public final TimingHistogram gvlWait = new TimingHistogram(SLOTS);
    final TimingHistogram gvlService = new TimingHistogram(SLOTS);

    /** Responses by status class: index 0 = 1xx ... 4 = 5xx. */
    private final LongAdder[] statusClasses = new LongAdder[5];
    /** Requests shed at admission (answered 503 at once: predicted wait over the limit). */
    private final LongAdder shed = new LongAdder();
    /** Health check requests (health_check_path): answered by the host, and let through to the app. */
    private final LongAdder healthByHost = new LongAdder();
    private final LongAdder healthByApp = new LongAdder();

    /** S_slot as of the last tick (see {@link #cachedMeanSlotNanos()}). */
    private volatile double cachedMeanSlotNanos = Double.NaN;

    /** Wall clock (epoch ns) minus {@link System#nanoTime()}, refreshed every tick: wall time of a T. */
    private volatile long epochOffsetNanos;

    // guarded by this
    private long ticks;
    private long lastTickNanos;
    private long lastSubmitted;
    private final long[] slotNanos = new long[SLOTS];
    private final long[] slotArrivals = new long[SLOTS];
    private final Histogram scratch = TimingHistogram.scratch();
    /** The submit count λ is read from ({@link #start}); null before start: then only {@link #tick} rolls. */
    private volatile LongSupplier submitted;
    /** When the current second ends ({@link System#nanoTime()}): read without the lock on every submit. */
    private volatile long nextRollNanos = Long.MAX_VALUE;

    public QueueMetrics() {
        for (int i = 0; i < statusClasses.length; i++) {
            statusClasses[i] = new LongAdder();
        }
        lastTickNanos = System.nanoTime();
        refreshEpochOffset();
    }

    /** Counts one response sent (or to be sent) with {@code status}; below 200 is 1xx, 500 and up 5xx. */
    public void countStatus(int status) {
        int index = Math.max(0, Math.min(4, status / 100 - 1));
        statusClasses[index].increment();
    }

    /** Counts one request shed at admission (its 503 is counted by {@link #countStatus} too). */
    public void countShed() {
        shed.increment();
    }

    /** Requests shed since start. */
    public long shed() {
        return shed.sum();
    }

    /** Counts one health check request: {@code byHost} when the host answered it, else it jumped the queue. */
    public void countHealthCheck(boolean byHost) {
        (byHost ? healthByHost : healthByApp).increment();
    }

    /** Health check requests since start that the host answered ({@code byHost}) or the app did. */
    public long healthChecks(boolean byHost) {
        return (byHost ? healthByHost : healthByApp).sum();
    }

    /** Responses counted for status class {@code digit}xx (1..5). */
    public long statusCount(int digit) {
        return statusClasses[digit - 1].sum();
    }

    /** Wall-clock epoch ns of a {@link System#nanoTime()} reading {@code t}: {@code t + offset}. */
    public long epochNanosAt(long t) {
        return t + epochOffsetNanos;
    }

    /**
     * Starts the one-second grid now, reading the dispatcher's submit count for λ. There is no timer: the
     * seconds roll when they are due and something happens (see the class comment).
     */
    public synchronized void start(LongSupplier submitted) {
        this.submitted = submitted;
        lastSubmitted = submitted.getAsLong();
        lastTickNanos = System.nanoTime();
        nextRollNanos = lastTickNanos + SECOND_NANOS;
    }

    /**
     * Tells the metrics a request is about to be submitted (before the dispatcher counts it): rolls the
     * seconds that have ended since the last roll. Any thread; a clock read and a volatile read unless a
     * second has ended.
     */
    public void arrived() {
        if (submitted != null && System.nanoTime() - nextRollNanos >= 0) {
            rollDue();
        }
    }

    /**
     * Rolls every whole second since the last roll (guarded by this): the first of them takes what was
     * recorded and submitted since then (in a gap that is when it happened: the responses of the last
     * requests), the others are empty; the grid stays on whole seconds from start.
     */
    private synchronized void rollDue() {
        long now = System.nanoTime();
        long missed = (now - lastTickNanos) / SECOND_NANOS;
        if (submitted == null || missed <= 0) {
            return;
        }
        tick(lastTickNanos + SECOND_NANOS, submitted.getAsLong());
        long empty = Math.min(missed - 1, SLOTS);
        ticks += missed - 1 - empty; // seconds whose slots later ones overwrite anyway
        for (long k = 0; k < empty; k++) {
            int index = (int) (ticks % SLOTS);
            queue.rollEmpty(index);
            service.rollEmpty(index);
            total.rollEmpty(index);
            bodyWait.rollEmpty(index);
            upstream.rollEmpty(index);
            slot.rollEmpty(index);
            gvlWait.rollEmpty(index);
            gvlService.rollEmpty(index);
            slotNanos[index] = SECOND_NANOS;
            slotArrivals[index] = 0;
            ticks++;
        }
        lastTickNanos += (missed - 1) * SECOND_NANOS;
        nextRollNanos = lastTickNanos + SECOND_NANOS;
        cachedMeanSlotNanos = meanSlotNanosRolled();
    }

    /**
     * Closes the current one-second slot: everything recorded since the last tick goes into it.
     *
     * @param nowNanos  {@link System#nanoTime()} now (the slot's end)
     * @param submitted requests submitted since start (the dispatcher's counter)
     */
    public synchronized void tick(long nowNanos, long submitted) {
        int index = (int) (ticks % SLOTS);
        queue.roll(index);
        service.roll(index);
        total.roll(index);
        bodyWait.roll(index);
        upstream.roll(index);
        slot.roll(index);
        gvlWait.roll(index);
        gvlService.roll(index);
        slotNanos[index] = Math.max(1, nowNanos - lastTickNanos);
        slotArrivals[index] = submitted - lastSubmitted;
        lastTickNanos = nowNanos;
        lastSubmitted = submitted;
        nextRollNanos = nowNanos + SECOND_NANOS;
        ticks++;
        refreshEpochOffset();
        cachedMeanSlotNanos = meanSlotNanosRolled();
    }

    /**
     * {@link #meanSlotNanos()} as of the last tick: for the submit path (shedding), which must not compute
     * windows. NaN until a request has finished and a tick has passed. Any thread, wait-free.
     */
    public double cachedMeanSlotNanos() {
        return cachedMeanSlotNanos;
    }

    private void refreshEpochOffset() {
        // Instant.now() has µs resolution here (currentTimeMillis only ms); once a second follows NTP steps.
        Instant now = Instant.now();
        long nano = System.nanoTime();
        epochOffsetNanos = now.getEpochSecond() * 1_000_000_000L + now.getNano() - nano;
    }

    /**
     * The last {@code seconds} completed slots (fewer when the host has not run that long).
     *
     * @return the window's percentiles; all zero when nothing was recorded
     */
    public synchronized Window window(int seconds) {
        rollDue();
        int count = (int) Math.min(seconds, Math.min(ticks, SLOTS));
        int newest = (int) ((ticks - 1) % SLOTS);
        long nanos = 0;
        long arrivals = 0;
        for (int i = 0; i < count; i++) {
            int index = Math.floorMod(newest - i, SLOTS);
            nanos += slotNanos[index];
            arrivals += slotArrivals[index];
        }
        double arrivalsPerSecond = nanos == 0 ? 0 : arrivals * 1e9 / nanos;
        return new Window(seconds, count, arrivalsPerSecond,
                percentiles(queue, newest, count), percentiles(service, newest, count),
                percentiles(total, newest, count), slot.windowMean(newest, count),
                percentiles(gvlWait, newest, count),
                gvlWaitRatio(gvlWait.windowMean(newest, count), gvlService.windowMean(newest, count)));
    }

    /** Records the GVL wait {@code gvlNanos} of a request whose service time was {@code serviceNanos}. */
    public void recordGvlWait(long gvlNanos, long serviceNanos) {
        gvlWait.record(gvlNanos);
        gvlService.record(serviceNanos);
    }

    /**
     * GVL wait relative to service time: mean GVL wait / mean service time of the requests that measured it
     * (the same requests, so it is Σ wait / Σ service). It can exceed 1: a request's wait includes the wait
     * to read its REQUEST, before T4. NaN when none measured it (unknown: Ruby 3.1, or no request in the
     * window); 0 for a service time of 0.
     */
    static double gvlWaitRatio(double meanGvlNanos, double meanServiceNanos) {
        if (Double.isNaN(meanGvlNanos) || Double.isNaN(meanServiceNanos)) {
            return Double.NaN;
        }
        return meanServiceNanos <= 0 ? 0 : meanGvlNanos / meanServiceNanos;
    }

    private Percentiles percentiles(TimingHistogram metric, int newest, int count) {
        metric.window(newest, count, scratch);
        return Percentiles.of(scratch);
    }

    /**
     * S_slot for the prediction, in ns: the mean slot time over the last 10 s, else over 60 s, else since
     * start; NaN when no request ever finished on a link.
     */
    public synchronized double meanSlotNanos() {
        rollDue();
        return meanSlotNanosRolled();
    }

    /** {@link #meanSlotNanos()} over the slots rolled so far (guarded by this). */
    private double meanSlotNanosRolled() {
        int newest = (int) ((ticks - 1) % SLOTS);
        double mean = slot.windowMean(newest, (int) Math.min(MAIN_WINDOW_SECONDS, Math.min(ticks, SLOTS)));
        if (Double.isNaN(mean)) {
            mean = slot.windowMean(newest, (int) Math.min(ticks, SLOTS));
        }
        if (Double.isNaN(mean)) {
            mean = slot.readCumulative(all -> all.getTotalCount() == 0 ? Double.NaN : all.getMean());
        }
        return mean;
    }

    /**
     * W_pred, the predicted queue time of a request arriving now, in ns. 0 when a slot is idle
     * ({@code busy < live} and {@code depth == 0}); else (depth + 1) · S_slot / live, with S_slot from
     * {@link #meanSlotNanos()}. {@code +Infinity} with no live slot at all (nothing will serve it); 0 while
     * S_slot is unknown (no request has finished yet).
     *
     * @param depth requests waiting or held (L)
     * @param busy  links running a request
     * @param live  c: the live links, or the concurrency limit of fiber slots when it is lower
     *              ({@link dev.pumaplus.host.queue.QueueSnapshot#capacity()}): the requests that may run at once
     */
    public static double predictedWaitNanos(int depth, int busy, int live, double meanSlotNanos) {
        if (busy < live && depth == 0) {
            return 0;
        }
        if (live <= 0) {
            return Double.POSITIVE_INFINITY;
        }
        if (Double.isNaN(meanSlotNanos)) {
            return 0;
        }
        return (depth + 1) * meanSlotNanos / live;
    }

    /**
     * ρ = λ · S_slot / c over the main window: the share of slot capacity the arrivals need. NaN with no
     * live slot; 0 while S_slot is unknown.
     */
    public static double utilization(double arrivalsPerSecond, double meanSlotNanos, int live) {
        if (live <= 0) {
            return Double.NaN;
        }
        if (Double.isNaN(meanSlotNanos)) {
            return 0;
        }
        return arrivalsPerSecond * meanSlotNanos / 1e9 / live;
    }

    /**
     * Percentiles of one metric over one window, in ns.
     *
     * @param count the number of values
     */
    public record Percentiles(long count, long p50, long p90, long p95, long p99, long max) {

        static Percentiles of(AbstractHistogram h) {
            if (h.getTotalCount() == 0) {
                return new Percentiles(0, 0, 0, 0, 0, 0);
            }
            return new Percentiles(h.getTotalCount(), h.getValueAtPercentile(50), h.getValueAtPercentile(90),
                    h.getValueAtPercentile(95), h.getValueAtPercentile(99), h.getMaxValue());
        }
    }

    /**
     * One sliding window.
     *
     * @param seconds           the window asked for
     * @param slots             completed one-second slots it covers (less than {@code seconds} after start)
     * @param arrivalsPerSecond λ: submits in the window per second of its measured length
     * @param slotMeanNanos     mean slot time in ns, NaN when no request finished on a link in the window
     * @param gvlWait           GVL wait of the requests whose worker measured it ({@code count} 0: unknown)
     * @param gvlWaitRatio      their GVL wait / their service time (0 and up); NaN when none measured it
     */
    public record Window(int seconds, int slots, double arrivalsPerSecond, Percentiles queue, Percentiles service,
                  Percentiles total, double slotMeanNanos, Percentiles gvlWait, double gvlWaitRatio) {
    }
}
