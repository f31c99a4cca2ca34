/*
 * What the autoscaling controller observes, registered by the host: the queue's signals over the last
 * completed second (arrivals, queue time percentiles, slot time, depth, slots, W_pred), the share of service
 * time the workers' threads waited for their GVL, the concurrency limit of fiber slots, and the machine's
 * CPU and memory. Read once a tick, beside the request path, never on it.
 */
package dev.pumaplus.spi;

import java.util.concurrent.ScheduledExecutorService;

/** The host's measurements for the controller. Thread-safe. */
public interface LoadSignals {

    /**
     * A sample now. The CPU share is measured since the previous call (the first call reports NaN), so one
     * caller should sample at a steady rate (the controller's tick).
     */
    Sample sample();

    /**
     * A sample now that leaves the CPU baseline alone: its CPU share is the one the last {@link #sample()}
     * measured (NaN before one). For a reading between two samples, such as an alarm's. The default samples.
     */
    default Sample peek() {
        return sample();
    }

    /**
     * Asks to be told, between samples, when the queue is clearly hot: {@code onHot} runs on {@code timer}
     * once the oldest waiting request has waited at least {@code thresholdNanos} while every live slot is
     * busy, and again at most once per {@code thresholdNanos} while that lasts. The host checks on
     * {@code timer} only while requests wait, so an idle or lightly loaded host schedules nothing. A new
     * call replaces the previous watch; {@code onHot} null stops it. A host without the watch never calls
     * (the default).
     */
    default void watchHotQueue(long thresholdNanos, ScheduledExecutorService timer, Runnable onHot) {
    }

    /** How long the oldest waiting request has waited now, ns; 0 when none waits. */
    default long oldestWaitNanos() {
        return 0;
    }

    /**
     * @param arrivalsPerSecond  λ over the last completed second
     * @param queueP95Nanos      queue time (T3 − T2b) p95 over the last completed second, ns (0 when none)
     * @param queueP99Nanos      queue time p99 over the last completed second, ns
     * @param meanSlotNanos      S: mean slot time over the last 10 s (else 60 s, else since start); NaN when unknown
     * @param depth              requests waiting now
     * @param busySlots          slots running a request now
     * @param liveSlots          slots dialled in now
     * @param predictedWaitNanos W_pred now (docs/METRICS.md); +Infinity with no live slot
     * @param cpuBusy            share of the machine's CPU time busy since the previous sample, 0..1; NaN when unknown
     * @param memAvailableBytes  MemAvailable of /proc/meminfo; -1 when unknown
     * @param shed               requests shed since start
     * @param gvlWaitRatio       GVL wait / service time of the requests of the last 10 s whose worker measured
     *                           it (Ruby 3.2+), 0..1; NaN when none did: unknown (Ruby 3.1), never 0
     * @param concurrencyLimit   the concurrency limit of fiber slots in force now ({@link ConcurrencyLimit}); 0
     *                           when none is (thread and Ractor slots)
     */
    record Sample(double arrivalsPerSecond, long queueP95Nanos, long queueP99Nanos, double meanSlotNanos,
                  int depth, int busySlots, int liveSlots, double predictedWaitNanos, double cpuBusy,
                  long memAvailableBytes, long shed, double gvlWaitRatio, int concurrencyLimit) {

        /** A sample without a concurrency limit (SPI 2.2's fields). */
        public Sample(double arrivalsPerSecond, long queueP95Nanos, long queueP99Nanos, double meanSlotNanos,
                      int depth, int busySlots, int liveSlots, double predictedWaitNanos, double cpuBusy,
                      long memAvailableBytes, long shed, double gvlWaitRatio) {
            this(arrivalsPerSecond, queueP95Nanos, queueP99Nanos, meanSlotNanos, depth, busySlots, liveSlots,
                    predictedWaitNanos, cpuBusy, memAvailableBytes, shed, gvlWaitRatio, 0);
        }

        /** A sample without a GVL wait measurement (SPI 2.0's fields). */
        public Sample(double arrivalsPerSecond, long queueP95Nanos, long queueP99Nanos, double meanSlotNanos,
                      int depth, int busySlots, int liveSlots, double predictedWaitNanos, double cpuBusy,
                      long memAvailableBytes, long shed) {
            this(arrivalsPerSecond, queueP95Nanos, queueP99Nanos, meanSlotNanos, depth, busySlots, liveSlots,
                    predictedWaitNanos, cpuBusy, memAvailableBytes, shed, Double.NaN);
        }
    }
}
