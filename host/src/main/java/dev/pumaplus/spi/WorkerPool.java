/*
 * The host's handle on the shepherd's worker processes, for the fork actuator: ask for a number of worker
 * processes (the WORKER_COUNT frame, docs/PROTOCOL.md) and see which have dialled in.
 */
package dev.pumaplus.spi;

import java.util.List;

/** Registered by the host once the shepherd has sent its configuration. Thread-safe. */
public interface WorkerPool {

    /** Worker threads per process: the slots one process brings once ready. */
    int threadsPerWorker();

    /** Worker processes the configuration started with. */
    int initialWorkers();

    /** Asks the shepherd to run {@code count} worker processes (at least 1). Returns at once. */
    void desiredWorkers(int count);

    /** Pids of worker processes whose every thread has dialled in, in no particular order. */
    List<Long> readyWorkerPids();
}
