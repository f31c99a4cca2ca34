/*
 * The fork actuator's units: a unit of capacity is one worker process the shepherd forks (preloaded app,
 * then on_worker_boot), asked for through the host's WorkerPool (the WORKER_COUNT frame). The host counts
 * them (WorkerPool#countedActuator) and the controller drives that actuator once a tick; the unit is ready
 * when every one of its threads has dialled in.
 */
package dev.pumaplus.actuator.fork;

import dev.pumaplus.spi.CountedUnits;
import dev.pumaplus.spi.WorkerPool;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Units = the worker processes asked for (starts at the configured {@code workers}, never fewer than one);
 * dialled in = processes whose every thread has dialled in (the host caps ready at the units asked for, so a
 * retired process still finishing its requests is not counted). Dead time: from an add until the ready
 * count reached what it asked for, starting at {@value #DEFAULT_DEAD_TIME_MS} ms.
 * Memory per unit: the mean proportional set size (Pss of /proc/PID/smaps_rollup) of the ready workers, so
 * pages shared copy-on-write with the shepherd count once, shared.
 *
 * <p>Threading: as {@link CountedUnits}.
 *
 * @param pool the host's worker processes
 */
record ForkUnits(WorkerPool pool) implements CountedUnits {

    /** The dead time assumed before any addition was measured, ms: a fork plus a small app's boot. */
    static final long DEFAULT_DEAD_TIME_MS = 1000;

    @Override
    public int initialUnits() {
        return pool.initialWorkers();
    }

    /** Never fewer than one worker. */
    @Override
    public int minUnits() {
        return 1;
    }

    @Override
    public long defaultDeadTimeMs() {
        return DEFAULT_DEAD_TIME_MS;
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
    public void request(int total) {
        pool.desiredWorkers(total);
    }

    @Override
    public int dialledIn() {
        return pool.readyWorkerPids().size();
    }
}
