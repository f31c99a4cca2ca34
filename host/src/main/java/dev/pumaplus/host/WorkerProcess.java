/*
 * The dispatcher's count of one worker process's slots (links grouped by the pid in their HELLO): used to
 * spread requests across processes and to report per-worker status in the control app's /stats.
 */
package dev.pumaplus.host;

/**
 * Counters for one worker process. Every field is guarded by the {@link Dispatcher}'s lock.
 */
final class WorkerProcess {

    final long pid;
    final long workerIndex;
    /** Wall-clock ms when its first link said HELLO. */
    final long startedAtMillis;
    int live;
    int busy;
    long completed;

    WorkerProcess(long pid, long workerIndex, long startedAtMillis) {
        this.pid = pid;
        this.workerIndex = workerIndex;
        this.startedAtMillis = startedAtMillis;
    }
}
