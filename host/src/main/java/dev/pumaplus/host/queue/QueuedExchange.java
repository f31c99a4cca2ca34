/*
 * One admitted request, as the protocol that submitted it holds it (the Exchange, from queue to respond):
 * the protocol resumes a paused response, cancels, and reports T6 through it. Calls go down only: to the Dispatcher (cancel) and to the WorkerLink the request was dispatched to.
 */
package dev.pumaplus.host.queue;

import dev.pumaplus.spi.Exchange;
import dev.pumaplus.spi.RequestHead;
import dev.pumaplus.spi.ResponseSink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.channels.FileChannel;

/**
 * The host's side of an {@link Exchange}, made at admission. Its parts each have one owner: the bytes
 * still to send ({@link PendingBody}), what became of the response ({@link ResponseRecord}), the response
 * parts its sink has not taken yet ({@link ResponseSpool}) and the queue's
 * record of it ({@link Ticket}, with T3 and the link it runs on).
 *
 * <p>Timing points (ns of the host's {@link dev.pumaplus.host.measure.NanoClock}): T1 and T2 come with the {@link #head}, T2b
 * ({@link #runnableNanos}) at admission, T3 at dispatch ({@link #dispatchedNanos()}; a request a dead link
 * never delivered is dispatched again, and T3 is then the later dispatch's), T4, T5 and body
 * read in the {@link #response}, T6 in {@link #responseSent}.
 *
 * <p>Threading: every method is thread-safe.
 */
final class QueuedExchange implements Exchange {

    /** The client connection it came on (the fairness rule's key). */
    final Object connection;
    final long requestId;
    /** The parsed request: method, target, T1 and T2. */
    final RequestHead head;
    /** T2b: when the request was admitted, right before it entered the queue. */
    final long runnableNanos;
    final PendingBody body;
    final ResponseRecord response;
    /** The response's parts its sink has not taken yet; used on the worker link's event loop only. */
    final ResponseSpool spool;
    final Ticket ticket;
    /** The worker process whose links alone may run it while that process has one (sticky WebSocket events); 0: any. */
    final long stickyPid;
    private final Dispatcher dispatcher;
    private final RequestReporting reporting;
    /** T6 has been reported (the protocol calls responseSent once; this guards against a second call). */
    private volatile boolean sent;

    /**
     * @param env  the encoded env pair list; ownership transfers
     * @param body the body when held in memory; ownership transfers
     * @param file null, or the spool file with the whole body; ownership transfers
     * @param stickyPid the only worker process that may run it while that process has a link; 0: any
     */
    QueuedExchange(Dispatcher dispatcher, RequestReporting reporting, Object connection, long requestId,
                   RequestHead head, long runnableNanos, ByteBuf env, ByteBuf body, FileChannel file,
                   ResponseSink sink, long stickyPid) {
        this.requestId = requestId;
        this.head = head;
        this.runnableNanos = runnableNanos;
        this.body = new PendingBody(env, body, file);
        this.response = new ResponseRecord(sink, reporting.metrics());
        this.spool = new ResponseSpool(response, ByteBufAllocator.DEFAULT);
        this.connection = connection;
        this.dispatcher = dispatcher;
        this.reporting = reporting;
        this.stickyPid = stickyPid;
        this.ticket = new Ticket(this); // published to the queue only after construction
    }

    /** The pid of the worker process it was dispatched to; 0 before dispatch. */
    long workerPid() {
        WorkerLink link = ticket.link();
        return link == null ? 0 : link.hello.pid();
    }

    /** T3: when it was last assigned to a link; 0 before dispatch. */
    long dispatchedNanos() {
        return ticket.dispatchedNanos();
    }

    /**
     * {@inheritDoc} Before dispatch there is nothing to resume; otherwise the exchange's spool delivers on its
     * link's event loop.
     */
    @Override
    public void resumeResponse() {
        WorkerLink link = ticket.link();
        if (link != null && !response.cancelled()) {
            link.resumeResponse(this); // also after the worker finished: its spool may still hold parts
        }
    }

    @Override
    public void cancel() {
        switch (dispatcher.cancel(ticket)) {
            case REMOVED -> {
                response.cancel();
                body.discard();
            }
            case RUNNING -> {
                response.cancel();
                ticket.link().cancel(this);
            }
            case NONE -> {
                // Refused or cancelled before: nothing is left to stop. Finished by the worker: its spool
                // may still hold parts for the client, which are dropped.
                WorkerLink link = ticket.link();
                if (link != null && !response.cancelled()) {
                    response.cancel();
                    link.cancel(this);
                }
            }
        }
    }

    /**
     * {@inheritDoc} Records total time T6 − T1 for a response the worker completed (not for one the host
     * failed, nor a cancelled one), then writes the {@code log_requests} line if that is switched on.
     */
    @Override
    public void responseSent(long flushedNanos) {
        if (sent) {
            return;
        }
        sent = true;
        int status = response.status(); // volatile read first: T4, T5 and body read are visible after it
        if (status != 0 && !response.failed() && !response.cancelled()) {
            reporting.metrics().total.record(flushedNanos - head.firstByteNanos());
        }
        RequestLog log = reporting.requestLog();
        if (log != null && status != 0) {
            log.log(this, flushedNanos);
        }
    }
}
