/*
 * Claims about one second of a timing histogram's ring: kept sparse, it adds into a window exactly what the
 * dense histogram of that second would, loses no count however large, and holds only the buckets it filled.
 */
package dev.pumaplus.host.measure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.HdrHistogram.IntCountsHistogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class HistogramSlotTest {

    private static Histogram histogram() {
        return new Histogram(1, TimingHistogram.MAX_NANOS, TimingHistogram.DIGITS);
    }

    @Test
    void aWindowOfSparseSlotsEqualsTheWindowOfTheDenseSecondsBucketForBucket() {
        SplittableRandom random = new SplittableRandom(14);
        Histogram dense = histogram();
        Histogram sparse = histogram();
        HistogramSlot slot = new HistogramSlot();
        long count = 0;
        double medianSum = 0;
        for (int second = 0; second < 5; second++) {
            Histogram recorded = histogram();
            recorded.recordValue(0);
            recorded.recordValue(TimingHistogram.MAX_NANOS);
            for (int i = 0; i < 20_000; i++) {
                // log-uniform over 1 ns .. 1 hour: every octave of the range gets values
                recorded.recordValue((long) Math.pow(TimingHistogram.MAX_NANOS, random.nextDouble()));
            }
            dense.add(recorded);
            slot.set(recorded);
            slot.addTo(sparse);
            count += slot.count();
            medianSum += slot.medianSum();
        }

        assertEquals(dense.getTotalCount(), sparse.getTotalCount());
        assertEquals(dense.getMinValue(), sparse.getMinValue());
        assertEquals(dense.getMinNonZeroValue(), sparse.getMinNonZeroValue());
        assertEquals(dense.getMaxValue(), sparse.getMaxValue());
        assertEquals(dense.getMean(), sparse.getMean(), 0.0);
        assertEquals(dense.getMean(), medianSum / count, dense.getMean() * 1e-12,
                "the slots' counts and median sums give the merged window's mean without merging");
        for (double p : new double[] {50, 90, 99, 99.9, 100}) {
            assertEquals(dense.getValueAtPercentile(p), sparse.getValueAtPercentile(p), "p" + p);
        }
        int buckets = 0;
        for (HistogramIterationValue bucket : dense.allValues()) {
            assertEquals(bucket.getCountAtValueIteratedTo(), sparse.getCountAtValue(bucket.getValueIteratedTo()),
                    "bucket of " + bucket.getValueIteratedTo());
            buckets++;
        }
        assertTrue(buckets > 4_000, "the whole range was compared: " + buckets + " buckets");
    }

    @Test
    void aBucketOverOneEntrysCountTakesSeveralEntriesAndLosesNothing() {
        long count = 2 * HistogramSlot.MAX_ENTRY_COUNT + 5;
        Histogram recorded = histogram();
        recorded.recordValueWithCount(250_000, count);
        HistogramSlot slot = new HistogramSlot();
        slot.set(recorded);
        Histogram window = histogram();
        slot.addTo(window);

        assertEquals(3, slot.entries());
        assertEquals(count, window.getCountAtValue(250_000));
        assertEquals(count, window.getTotalCount());
    }

    @Test
    void aSecondHoldsOnlyTheBucketsItFilledAndAnEmptySecondNothing() {
        SplittableRandom random = new SplittableRandom(7);
        Histogram busy = histogram();
        for (int i = 0; i < 20_000; i++) {
            busy.recordValue(20_000 + random.nextLong(180_000)); // 20..200 µs, a busy second of /hello
        }
        HistogramSlot slot = new HistogramSlot();
        slot.set(busy);
        // what each slot used to be: the dense histogram of int counts
        int denseBytes = new IntCountsHistogram(1, TimingHistogram.MAX_NANOS, TimingHistogram.DIGITS)
                .getEstimatedFootprintInBytes();
        assertTrue(slot.entries() * 8 < denseBytes / 5,
                slot.entries() + " entries against a dense slot of " + denseBytes + " bytes");

        slot.set(histogram());
        assertEquals(0, slot.entries(), "an idle second holds nothing");
    }
}
