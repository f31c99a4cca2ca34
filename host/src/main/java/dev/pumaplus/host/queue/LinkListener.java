/*
 * The one narrow callback from a worker link back up to the queue (the Dispatcher implements it): ready,
 * finished (give me the next request), draining, closed. Work goes down the request path through
 * WorkerLink.start; results come back only through this.
 */
package dev.pumaplus.host.queue;

/**
 * What a worker link reports to the queue, on the link's event loop. The queue answers with the next
 * request to run where there is one; it may also {@link WorkerLink#start} a request on the link or
 * {@link WorkerLink#retire} it itself.
 */
public interface LinkListener {

    /** The link said HELLO and joined the pipeline: it is a live slot and idle. Returns its token. */
    Object ready(WorkerLink link);

    /**
     * The link's request is finished (both END_STREAMs): returns the next request to run, or null.
     * {@code threadWaitNanos} is how long the worker measured the request ready to run but waiting for its
     * thread (RESPONSE_HEAD's GVL wait), negative when it measured none.
     */
    QueuedExchange finished(Object token, long threadWaitNanos);

    /** The worker sent GOAWAY: dispatch nothing more to the link (retired now if idle). */
    void draining(Object token);

    /**
     * The link's channel closed. {@code delivered} is the request whose REQUEST frame the link wrote to
     * the worker (null: none). The queue puts a request it had given the link that was not delivered back
     * at the head of its FIFO, a bounded number of times; it returns the request the link must answer (one
     * the worker had, or one given up), or null.
     */
    QueuedExchange closed(Object token, QueuedExchange delivered);
}
