/*
 * The opt-in per-request timing line (config `log_requests`): after a response's last byte was sent (T6),
 * one line in the host's log (stdout) with every timing point of that request, for operators and the integration tests that
 * reconcile the host's numbers with what a client measured.
 */
package dev.pumaplus.host.queue;

import dev.pumaplus.wire.ResponseHead;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The line, exactly (ns values are {@link System#nanoTime()} readings, {@code body_read} a duration; a
 * point the request never reached, e.g. T4 of a 502, is 0):
 * <pre>
 * puma-plus: request id=ID METHOD PATH STATUS t1=NS t2=NS t2b=NS t3=NS t4=NS t5=NS t6=NS body_read=NS
 * </pre>
 * PATH is the request target without its query string.
 *
 * <p>Threading: {@link #log} is called on a protocol's event loop, after the request's metrics are
 * recorded; it formats the line there (opt-in, so allocating is fine) and hands it to one daemon thread
 * that logs it (HostLogHandler, as every host line: text or JSON by {@code log_format}), so a slow stdout
 * reader never stalls an event loop. Lines leave in the order they were logged.
 */
public final class RequestLog {

    private static final System.Logger LOG = System.getLogger(RequestLog.class.getName());

    private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
    /** Lines handed over and not yet logged: the queue's and the one the thread is logging. */
    private final AtomicInteger unlogged = new AtomicInteger();

    /** Starts the logging thread. */
    public RequestLog() {
        Thread printer = new Thread(this::print, "puma-plus-request-log");
        printer.setDaemon(true);
        printer.start();
    }

    /** The line for {@code ex}, which was sent at {@code t6}. Any thread. */
    void log(QueuedExchange ex, long t6) {
        unlogged.incrementAndGet();
        lines.add(line(ex, t6));
    }

    public static String line(QueuedExchange ex, long t6) {
        String target = EnvEncoder.pathAndQuery(ex.head.target());
        int q = target.indexOf('?');
        String path = q < 0 ? target : target.substring(0, q);
        ResponseHead worker = ex.response.workerHead(); // null for a request the worker never answered
        return "puma-plus: request id=" + ex.requestId + " " + ex.head.method() + " " + path + " "
                + ex.response.status() + " t1=" + ex.head.firstByteNanos() + " t2=" + ex.head.headersParsedNanos()
                + " t2b=" + ex.runnableNanos + " t3=" + ex.dispatchedNanos()
                + " t4=" + (worker == null ? 0 : worker.appCalledNanos())
                + " t5=" + (worker == null ? 0 : worker.appReturnedNanos()) + " t6=" + t6
                + " body_read=" + (worker == null ? 0 : worker.bodyReadNanos());
    }

    private void print() {
        try {
            while (true) {
                String line = lines.take();
                LOG.log(System.Logger.Level.INFO, line);
                unlogged.decrementAndGet();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits up to {@code millis} for every line handed over to be logged (shutdown). */
    public void drain(long millis) {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        while (unlogged.get() > 0 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
