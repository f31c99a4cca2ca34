/*
 * One worker process as the queue counts it, in a QueueSnapshot: read by the control app, the dashboard, the
 * Prometheus exposition and the worker pool; never in a request's path.
 */
package dev.pumaplus.host.queue;

/** Per worker process: its shepherd generation, live, idle and busy links, requests completed on them. */
public record ProcessStatus(long pid, long workerIndex, long generation, long startedAtMillis, int live, int idle,
                            int busy, long completed) {
}
