/*
 * The fork actuator: a unit of capacity is one worker process the shepherd forks (preloaded app, then
 * on_worker_boot), asked for through the host's WorkerPool (the WORKER_COUNT frame). The controller
 * drives it once a tick; the unit is ready when every one of its threads has dialled in.
 */
package dev.pumaplus.actuator.fork;

import dev.pumaplus.spi.Actuator;
import dev.pumaplus.spi.DeadTime;
import dev.pumaplus.spi.WorkerPool;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Units = the worker processes asked for (starts at the configured {@code workers}); ready = processes
 * whose every thread has dialled in, at most the units asked for (a retired process still finishing its
 * requests is not counted). Dead time: {@link DeadTime}, from an {@link #add} until the ready count reached
 * what it asked for, starting at {@value #DEFAULT_DEAD_TIME_MS} ms.
 * Memory per unit: the mean proportional set size (Pss of /proc/PID/smaps_rollup) of the ready workers, so
 * pages shared copy-on-write with the shepherd count once, shared.
 *
 * <p>Threading: all methods synchronize on this object; they are called from the controller's tick thread
 * and the control app.
 */
final class ForkActuator implements Actuator {

    /** The dead time assumed before any addition was measured, ms: a fork plus a small app's boot. */
    static final long DEFAULT_DEAD_TIME_MS = 1000;

    private final WorkerPool pool;
    private final DeadTime deadTime;
    private final boolean watch;
    private int units;

    /**
     * @param clock {@link System#nanoTime()} in production; injected so the timing is testable
     * @param watch start a watcher per addition (production); false when a test calls {@link #readyUnits}
     */
    ForkActuator(WorkerPool pool, LongSupplier clock, boolean watch) {
        this.pool = pool;
        this.deadTime = new DeadTime(DEFAULT_DEAD_TIME_MS * 1_000_000, clock);
        this.watch = watch;
        this.units = Math.max(1, pool.initialWorkers());
    }

    @Override
    public String kind() {
        return "fork";
    }

    @Override
    public int slotsPerUnit() {
        return pool.threadsPerWorker();
    }

    @Override
    public long deadTimeNanos() {
        return deadTime.nanos();
    }

    @Override
    public synchronized int units() {
        return units;
    }

    @Override
    public synchronized int readyUnits() {
        int ready = Math.min(units, pool.readyWorkerPids().size());
        deadTime.observe(ready);
        return ready;
    }

    @Override
    public long memoryPerUnitBytes() {
        List<Long> pids = pool.readyWorkerPids();
        long sum = 0;
        int n = 0;
        for (long pid : pids) {
            long pss = pssBytes(pid);
            if (pss > 0) {
                sum += pss;
                n++;
            }
        }
        return n == 0 ? -1 : sum / n;
    }

    /** Pss of a process in bytes from /proc/PID/smaps_rollup; -1 when it cannot be read. */
    static long pssBytes(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/smaps_rollup"))) {
                if (line.startsWith("Pss:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            // the process is gone, or no smaps_rollup (kernel < 4.14): unknown
        }
        return -1;
    }

    @Override
    public boolean gainKnown() {
        return true; // a process has its own GVL: one more adds its threads' capacity
    }

    @Override
    public synchronized void add(int count) {
        if (count <= 0) {
            return;
        }
        units += count;
        boolean started = deadTime.added(units);
        pool.desiredWorkers(units);
        if (started && watch) {
            deadTime.watch("puma-plus-fork-actuator-watch", this::readyUnits);
        }
    }

    @Override
    public synchronized void remove(int count) {
        if (count <= 0) {
            return;
        }
        units = Math.max(1, units - count);
        deadTime.removed(units);
        pool.desiredWorkers(units);
    }
}
