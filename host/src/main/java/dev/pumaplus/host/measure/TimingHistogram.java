/*
 * One duration metric of the request timing (queue, service, total, body wait, upstream, slot): recorded
 * per request on the hot path by the queue and the worker links, rolled a second at a time by QueueMetrics into
 * sliding windows and a cumulative histogram that /stats and /metrics read.
 */
package dev.pumaplus.host.measure;

import java.util.function.Function;
import org.HdrHistogram.AbstractHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * An HdrHistogram {@link Recorder} (values in ns, 1 ns to 1 hour, two significant digits: every value is
 * kept within 1%) plus a ring of one-second slots and a cumulative histogram.
 *
 * <p>Why two digits: a window is up to 60 slots, six metrics have one each; at two digits a histogram is
 * ~4,600 buckets, at three ~34,000, for precision no reader of a millisecond percentile needs. A slot keeps
 * only the buckets its second filled ({@link HistogramSlot}).
 *
 * <p>Threading: {@link #record} is wait-free and allocation-free, callable from any thread at any time.
 * Rolling and reading the slots and the cumulative histogram take this object's monitor: QueueMetrics rolls
 * each second that has ended (see its class comment), /stats and /metrics read.
 */
public final class TimingHistogram {

    /** The largest value kept, in ns (1 hour); larger values are recorded as this. */
    public static final long MAX_NANOS = 3_600_000_000_000L;
    /** Significant decimal digits kept: values are exact within 1%. */
    static final int DIGITS = 2;

    private final Recorder recorder = new Recorder(1, MAX_NANOS, DIGITS);
    private final HistogramSlot[] slots;
    private final Histogram cumulative = new Histogram(1, MAX_NANOS, DIGITS);
    /** The interval histogram handed back to the recorder at the next swap, so rolling allocates no histogram. */
    private Histogram spare;

    TimingHistogram(int slotCount) {
        slots = new HistogramSlot[slotCount];
        for (int i = 0; i < slotCount; i++) {
            slots[i] = new HistogramSlot();
        }
    }

    /**
     * Records one duration. Negative values (a worker clock reading out of order) count as 0, values above
     * {@link #MAX_NANOS} as the maximum: a sample is never lost, and never throws.
     *
     * @param nanos the duration in ns
     */
    public void record(long nanos) {
        recorder.recordValue(nanos < 0 ? 0 : Math.min(nanos, MAX_NANOS));
    }

    /**
     * Moves everything recorded since the last roll into slot {@code index} and the cumulative histogram.
     * Costs what the second recorded (its non-zero buckets), not the histogram's ~4,600 buckets: the slot is
     * added into the cumulative histogram sparsely, and an empty second adds nothing.
     */
    synchronized void roll(int index) {
        Histogram interval = recorder.getIntervalHistogram(spare);
        HistogramSlot slot = slots[index];
        slot.set(interval);
        slot.addTo(cumulative);
        spare = interval;
    }

    /**
     * Empties slot {@code index} without touching what was recorded since the last roll: a second of a
     * quiet gap, after the gap's first second, which {@link #roll} gave what the gap recorded.
     */
    synchronized void rollEmpty(int index) {
        slots[index].clear();
    }

    /**
     * The mean of the slots {@code newest}, {@code newest − 1}, ... ({@code count} of them, wrapping around
     * the ring) in ns, as {@link #window} followed by {@code getMean()} would give it, without merging
     * buckets; NaN when they hold nothing.
     */
    synchronized double windowMean(int newest, int count) {
        long values = 0;
        double sum = 0;
        for (int i = 0; i < count; i++) {
            HistogramSlot slot = slots[Math.floorMod(newest - i, slots.length)];
            values += slot.count();
            sum += slot.medianSum();
        }
        return values == 0 ? Double.NaN : sum / values;
    }

    /**
     * Fills {@code into} (reset first) with the slots {@code newest}, {@code newest − 1}, ... ({@code count}
     * of them, wrapping around the ring).
     */
    synchronized void window(int newest, int count, AbstractHistogram into) {
        into.reset();
        for (int i = 0; i < count; i++) {
            slots[Math.floorMod(newest - i, slots.length)].addTo(into);
        }
    }

    /**
     * Runs {@code reader} on everything rolled since start, under this object's monitor (a roll adds to
     * it); the histogram must not escape the call.
     */
    public synchronized <T> T readCumulative(Function<Histogram, T> reader) {
        return reader.apply(cumulative);
    }

    /** A histogram of the same shape, for windows. */
    static Histogram scratch() {
        return new Histogram(1, MAX_NANOS, DIGITS);
    }
}
