/*
 * Where a request's timing goes once it is measured (beside the request path): the metrics aggregate, the
 * optional Server-Timing response header (config `server_timing`) and the optional per-request log line
 * (config `log_requests`). Given to the admission step and to every worker link, so neither reads its
 * settings from the queue.
 */
package dev.pumaplus.host.queue;

import dev.pumaplus.host.measure.QueueMetrics;



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
