/*
 * Where a request's timing goes once it is measured (beside the request path): the metrics aggregate, the
 * optional Server-Timing response header (config `server_timing`) and the optional per-request log line
 * (config `log_requests`). Given to the admission step and to every worker link, so neither reads its
 * settings from the queue.
 */
package dev.pumaplus.host.queue;

import dev.pumaplus.host.measure.QueueMetrics;
import dev.pumaplus.wire.ResponseHead;

/**
 * Settings a config reload may change while requests run. Thread-safe: the switches are volatile, read once
 * per request.
 */
public final class RequestReporting {

    private final QueueMetrics metrics;
    private volatile boolean serverTiming;
    private volatile RequestLog requestLog;

    public RequestReporting(QueueMetrics metrics) {
        this.metrics = metrics;
    }

    /**
     * The worker has the request's REQUEST frame: its queue time T3 − T2b ends at the T3 of the dispatch that
     * delivered it.
     */
    void queueTime(QueuedExchange ex) {
        metrics.queue.record(ex.dispatchedNanos() - ex.runnableNanos);
    }

    /**
     * Body wait ends when the worker has the whole body: the client's part ends at T2b (the request is
     * submitted only once its body arrived), the worker's read of it ({@code head}'s body read ns) follows.
     */
    void bodyWait(QueuedExchange ex, ResponseHead head) {
        metrics.bodyWait.record(ex.runnableNanos - ex.head.headersParsedNanos() + head.bodyReadNanos());
    }

    /** A response the worker ended normally: service time T5 − T4 − body read, and its GVL wait if measured. */
    void serviceTime(ResponseRecord response) {
        long service = response.serviceNanos();
        metrics.service.record(service);
        long gvl = response.workerHead().gvlWaitNanos();
        if (gvl >= 0) {
            metrics.recordGvlWait(gvl, service);
        }
    }

    /** The aggregate every duration is recorded into. */
    QueueMetrics metrics() {
        return metrics;
    }

    /** Config {@code server_timing}: links add a Server-Timing header to each response head they forward. */
    public void serverTiming(boolean on) {
        serverTiming = on;
    }

    public boolean serverTiming() {
        return serverTiming;
    }

    /** Config {@code log_requests}: the per-request timing line, or null when off. */
    public void requestLog(RequestLog log) {
        requestLog = log;
    }

    public RequestLog requestLog() {
        return requestLog;
    }
}
