/*
 * The queue's record of one request (queue → dispatch): where it stands, how often it was dispatched, its T3
 * and the link it runs on. Made by the exchange, moved only by the Dispatcher under its lock.
 */
package dev.pumaplus.host.queue;

/**
 * One per {@link QueuedExchange}. Every transition is the dispatcher's, under its lock; {@link #link} is
 * also read without it (volatile) by the exchange and by a link's start, and {@link #dispatchedNanos} after
 * dispatch only (the link's start happens after the lock is released).
 */
final class Ticket {

    /** Where a request stands in the queue. */
    enum State { NEW, WAITING, HELD, DISPATCHED, CANCELLED, DONE }

    final QueuedExchange exchange;
    private State state = State.NEW;
    /** Times it was assigned to a link (more than once only when a link closed before delivering it). */
    private int dispatches;
    /** T3, ns, of its latest dispatch; 0 before. */
    private long dispatchedNanos;
    /**
     * The link it runs on, set at each dispatch, null while it waits again after a link closed before
     * delivering it.
     */
    private volatile WorkerLink link;

    Ticket(QueuedExchange exchange) {
        this.exchange = exchange;
    }

    State state() {
        return state;
    }

    /** It waits in the FIFO (entered, promoted from its connection's line). */
    void waiting() {
        state = State.WAITING;
    }

    /** It is held behind its connection's waiting request. */
    void held() {
        state = State.HELD;
    }

    /** Removed before dispatch (its client left, or the queue refused or gave it up): never dispatched now. */
    void cancelled() {
        state = State.CANCELLED;
    }

    /** Its link finished it, or answered it. */
    void done() {
        state = State.DONE;
    }

    /** Assigned to {@code to} at T3 {@code nanos}. */
    void dispatched(WorkerLink to, long nanos) {
        state = State.DISPATCHED;
        dispatches++;
        dispatchedNanos = nanos;
        link = to;
    }

    /** Its link closed before delivering it: it waits again at the FIFO's head, on no link. */
    void requeued() {
        state = State.WAITING;
        link = null;
    }

    /** Times it was assigned to a link. */
    int dispatches() {
        return dispatches;
    }

    /** T3, ns: when the request was last assigned to a link; 0 before. Valid once the link has it. */
    long dispatchedNanos() {
        return dispatchedNanos;
    }

    /** The link it was last dispatched to, or null before dispatch or while it waits again. Any thread. */
    WorkerLink link() {
        return link;
    }
}
