/*
 * What became of one request's response (dispatch → worker → respond): the status the client is sent, the
 * worker's timing points T4, T5 and body read, and its fate (failed by the host, cancelled by the client,
 * hijacked by the app, finished); with the protocol's ResponseSink, where failures and host answers go.
 * Written by whichever station learns a fact, read by the request log and total time at T6.
 */
package dev.pumaplus.host.queue;

import dev.pumaplus.host.measure.QueueMetrics;
import dev.pumaplus.spi.ResponseSink;
import dev.pumaplus.wire.ResponseHead;
import java.util.List;
import java.util.Map;

/**
 * Threading: every field but the final ones is volatile; the worker's head (with T4, T5 and body read) is
 * written before {@link #status}, so whoever reads {@code status} first sees it. Every method may be called
 * from any thread; it calls only the sink and the metrics.
 */
final class ResponseRecord {

    private final ResponseSink sink;
    private final QueueMetrics metrics;
    private volatile boolean cancelled;
    private volatile boolean finished;
    private volatile boolean hijacked;
    private volatile boolean failed;
    private volatile int status;
    /** The worker's RESPONSE_HEAD: its status, T4, T5 and body read; null until it arrived. */
    private volatile ResponseHead workerHead;

    ResponseRecord(ResponseSink sink, QueueMetrics metrics) {
        this.sink = sink;
        this.metrics = metrics;
    }

    /** The protocol's sink: where the link forwards the response. */
    ResponseSink sink() {
        return sink;
    }

    /** The worker's RESPONSE_HEAD (or HIJACK_HEAD) arrived: keeps its timing, counts its status. */
    void head(ResponseHead head) {
        workerHead = head;
        status = head.status();
        metrics.countStatus(head.status());
    }

    /**
     * The host fails the request: marked failed (no service or total is recorded), {@code failStatus}
     * counted when the client is answered with it (no head sent yet), and the sink told.
     */
    void fail(int failStatus, String reason, boolean headSent) {
        failed = true;
        if (!headSent) {
            status = failStatus;
            metrics.countStatus(failStatus);
        }
        sink.fail(failStatus, reason, headSent);
    }

    /**
     * The host answers the request itself (a shed request): a complete response, counted by status; like a
     * failure, no service or total is recorded.
     */
    void answer(int answerStatus, List<Map.Entry<String, String>> headers, String text) {
        failed = true;
        status = answerStatus;
        metrics.countStatus(answerStatus);
        HostAnswer.write(sink, answerStatus, headers, text);
    }

    /** The client went away: the rest of the response is discarded. */
    void cancel() {
        cancelled = true;
    }

    boolean cancelled() {
        return cancelled;
    }

    /**
     * The worker's response ended (or the link gave up on it): nothing more comes from the worker. Parts the
     * exchange's {@link ResponseSpool} holds may still be on their way to the client.
     */
    void finish() {
        finished = true;
    }

    boolean finished() {
        return finished;
    }

    /** The app took the client connection: the worker's head is not forwarded. */
    void hijack() {
        hijacked = true;
    }

    boolean hijacked() {
        return hijacked;
    }

    /** Whether the host failed or answered the request itself ({@link #fail}, {@link #answer}). */
    boolean failed() {
        return failed;
    }

    /** The status the client is sent; 0 until known. */
    int status() {
        return status;
    }

    /** The worker's head, with T4, T5 and body read; null until it arrived. */
    ResponseHead workerHead() {
        return workerHead;
    }

    /** Service time T5 − T4 − body read, ns, once the worker's head arrived. */
    long serviceNanos() {
        ResponseHead head = workerHead;
        return head.appReturnedNanos() - head.appCalledNanos() - head.bodyReadNanos();
    }
}
