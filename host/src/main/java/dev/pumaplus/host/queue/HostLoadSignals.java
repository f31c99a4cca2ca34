/*
 * The LoadSignals service: the dispatcher's counters and the last second's queue metrics, plus the
 * machine's CPU share and available memory from /proc, for the autoscaling controller's tick (beside the
 * request path, never on it).
 */
package dev.pumaplus.host.queue;

import dev.pumaplus.host.measure.QueueMetrics;
import dev.pumaplus.spi.LoadSignals;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ScheduledExecutorService;

/**
 * CPU busy is the CPU time puma-plus's own processes (this JVM, the shepherd, every worker: the host's
 * process tree) used since the previous sample, over the capacity of the cores this JVM may run on (its
 * CPU affinity, × elapsed): the share of them the app already takes. When it nears 1, another worker
 * process only splits the same cores further and raises every request's service time. Processes that ended
 * between samples drop out; new ones count from their second sample. Memory is /proc/meminfo's
 * MemAvailable. Either is unknown (NaN, -1) where /proc cannot be read.
 *
 * <p>The hot-queue watch and the oldest request's wait are the dispatcher's ({@link Dispatcher#watchHot}).
 *
 * <p>Threading: {@link #sample()} and {@link #peek()} are synchronized (they keep the previous CPU readings).
 */
public final class HostLoadSignals implements LoadSignals {

    /** USER_HZ: the unit of utime and stime in /proc/PID/stat on Linux. */
    private static final double CLOCK_TICKS_PER_SECOND = 100;

    private final Dispatcher dispatcher;
    private final int cores = Runtime.getRuntime().availableProcessors();
    private java.util.Map<Long, Long> lastCpuTicks = new java.util.HashMap<>();
    private long lastSampleNanos;
    /** The CPU share the last {@link #sample()} measured, for {@link #peek()}. */
    private double lastCpuBusy = Double.NaN;

    public HostLoadSignals(Dispatcher dispatcher) {
        this.dispatcher = dispatcher;
    }

    @Override
    public synchronized Sample sample() {
        lastCpuBusy = cpuBusy();
        return sampleWith(lastCpuBusy);
    }

    @Override
    public synchronized Sample peek() {
        return sampleWith(lastCpuBusy);
    }

    private Sample sampleWith(double cpuBusy) {
        QueueSnapshot s = dispatcher.snapshot();
        QueueMetrics metrics = dispatcher.metrics();
        QueueMetrics.Window last = metrics.window(1);
        double slot = metrics.meanSlotNanos();
        return new Sample(last.arrivalsPerSecond(), last.queue().p95(), last.queue().p99(), slot, s.depth(),
                s.busy(), s.live(), QueueMetrics.predictedWaitNanos(s.depth(), s.busy(), s.capacity(), slot), cpuBusy,
                memAvailable(), metrics.shed(), metrics.window(QueueMetrics.MAIN_WINDOW_SECONDS).gvlWaitRatio(),
                s.limited() ? s.limit() : 0);
    }

    @Override
    public void watchHotQueue(long thresholdNanos, ScheduledExecutorService timer, Runnable onHot) {
        dispatcher.watchHot(thresholdNanos, timer, onHot);
    }

    @Override
    public long oldestWaitNanos() {
        return dispatcher.oldestWaitNanos();
    }

    private double cpuBusy() {
        long now = System.nanoTime();
        java.util.Map<Long, Long> current = new java.util.HashMap<>();
        ProcessHandle self = ProcessHandle.current();
        java.util.stream.Stream.concat(java.util.stream.Stream.of(self), self.descendants()).forEach(p -> {
            long ticks = cpuTicks(p.pid());
            if (ticks >= 0) {
                current.put(p.pid(), ticks);
            }
        });
        double share = Double.NaN;
        if (lastSampleNanos != 0 && now > lastSampleNanos && current.containsKey(self.pid())) {
            long used = 0;
            for (var e : current.entrySet()) {
                Long before = lastCpuTicks.get(e.getKey());
                if (before != null) {
                    used += Math.max(0, e.getValue() - before);
                }
            }
            share = used / CLOCK_TICKS_PER_SECOND / ((now - lastSampleNanos) / 1e9) / cores;
        }
        lastCpuTicks = current;
        lastSampleNanos = now;
        return share;
    }

    /** utime + stime of {@code pid} in clock ticks; -1 when it cannot be read (gone). */
    private static long cpuTicks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static long memAvailable() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemAvailable:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            // unknown
        }
        return -1;
    }
}
