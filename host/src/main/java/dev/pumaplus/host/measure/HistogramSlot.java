/*
 * One second of a TimingHistogram's ring (the measure step beside the request path): the buckets that
 * second filled, kept sparse, written once a second by the roll and added into windows for /stats, /metrics
 * and the load signals.
 */
package dev.pumaplus.host.measure;

import java.util.Arrays;
import org.HdrHistogram.AbstractHistogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * The non-zero buckets of one second's histogram, each a {@code long}: the bucket's lowest value in the
 * high bits, its count in the low {@link #COUNT_BITS}.
 *
 * <p>Why not a dense histogram per second: at two digits over 1 ns..1 hour a dense slot is ~18 KB of int
 * counts whatever it holds, and six metrics × 60 slots kept 6.6 MB live on the host's heap, nearly half of
 * its old generation at idle. A second of durations between 20 and 200 µs fills ~420 buckets (8 bytes
 * each); an empty second holds nothing. The worst case, a second whose durations spread over every bucket,
 * is ~36 KB.
 *
 * <p>Adding a slot into a histogram of the same shape gives exactly what adding the dense histogram did:
 * the same count in every bucket, and min, max and mean (which HdrHistogram reports per bucket) alike.
 *
 * <p>Not thread-safe: its TimingHistogram's monitor guards it.
 */
final class HistogramSlot {

    /** Bits of an entry holding the count; the value above them needs 42 bits (1 hour in ns < 2^42). */
    static final int COUNT_BITS = 22;
    /** The largest count one entry holds; a bucket with more takes several entries. */
    static final long MAX_ENTRY_COUNT = (1L << COUNT_BITS) - 1;

    private static final long[] EMPTY = new long[0];

    private long[] entries = EMPTY;
    /** Values the slot holds, and the sum of their buckets' median values: what HdrHistogram's mean adds up. */
    private long count;
    private double medianSum;

    /**
     * Replaces what the slot holds with the non-zero buckets of {@code second}. An empty second costs no
     * walk over the buckets: the host's idle seconds roll six of these each.
     */
    void set(AbstractHistogram second) {
        count = second.getTotalCount();
        medianSum = 0;
        if (count == 0) {
            entries = EMPTY;
            return;
        }
        int size = 0;
        long[] built = EMPTY;
        for (HistogramIterationValue bucket : second.recordedValues()) {
            long value = second.lowestEquivalentValue(bucket.getValueIteratedTo());
            long count = bucket.getCountAtValueIteratedTo();
            medianSum += (double) second.medianEquivalentValue(value) * count;
            while (count > 0) {
                long part = Math.min(count, MAX_ENTRY_COUNT);
                if (size == built.length) {
                    built = Arrays.copyOf(built, Math.max(16, size * 2));
                }
                built[size++] = value << COUNT_BITS | part;
                count -= part;
            }
        }
        entries = size == built.length ? built : Arrays.copyOf(built, size);
    }

    /** Empties the slot: a second in which nothing was recorded. */
    void clear() {
        entries = EMPTY;
        count = 0;
        medianSum = 0;
    }

    /** Adds every count the slot holds into {@code into} (a histogram of the same shape). */
    void addTo(AbstractHistogram into) {
        for (long entry : entries) {
            into.recordValueWithCount(entry >>> COUNT_BITS, entry & MAX_ENTRY_COUNT);
        }
    }

    /** Values held. */
    long count() {
        return count;
    }

    /**
     * The sum of the held values' bucket medians, ns: divided by {@link #count()} (over one slot or several)
     * it is the mean {@link AbstractHistogram#getMean()} gives for the same values, without merging buckets.
     */
    double medianSum() {
        return medianSum;
    }

    /** Entries held: one per non-zero bucket (more for a bucket over {@link #MAX_ENTRY_COUNT}). */
    int entries() {
        return entries.length;
    }
}
