/*
 * The queue's FIFO of runnable requests and the lines of requests held behind them (queue step): fairness
 * across client connections (seed 001), so one connection's pipelined or multiplexed requests never take
 * every slot while another connection's request waits. Owned by the Dispatcher, which calls it under its
 * lock.
 */
package dev.pumaplus.host.queue;

import dev.pumaplus.host.queue.SlotRoster.Slot;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Fairness (see {@link dev.pumaplus.spi.RequestQueue}): at most one request per client connection is in the
 * FIFO. A connection's further requests are held behind it and enter the FIFO tail, in order, once their
 * predecessor is dispatched (or cancelled). The dispatcher counts depth (waiting and held) and keeps each
 * request's state; this class keeps only the order, and returns the requests whose state a move changed.
 *
 * <p>Threading: not thread-safe; the {@link Dispatcher} calls every method under its lock. No allocation on
 * the dispatch path but a held line's deque, made when a connection's second request arrives.
 */
final class FairFifo {

    /** A connection in {@link #lines} whose waiting request has nothing held behind it (never mutated). */
    private static final ArrayDeque<Ticket> NOTHING_HELD = new ArrayDeque<>(0);

    private final ArrayDeque<Ticket> runnable = new ArrayDeque<>();
    /** Per connection with a request in the FIFO: the requests held behind it. */
    private final Map<Object, ArrayDeque<Ticket>> lines = new IdentityHashMap<>();

    /** Whether {@code connection} has a request in the FIFO, so its next one is held behind it. */
    boolean waiting(Object connection) {
        return lines.containsKey(connection);
    }

    /** Holds {@code t} behind its connection's waiting request ({@link #waiting} was true). */
    void hold(Ticket t) {
        Object connection = t.exchange.connection;
        ArrayDeque<Ticket> line = lines.get(connection);
        if (line == NOTHING_HELD) {
            line = new ArrayDeque<>(2);
            lines.put(connection, line);
        }
        line.add(t);
    }

    /** {@code t} waits in the FIFO: at its tail, or at its head with {@code jump} (the health check). */
    void enter(Ticket t, boolean jump) {
        if (jump) {
            runnable.addFirst(t); // the next free slot is its
        } else {
            runnable.addLast(t);
        }
        lines.put(t.exchange.connection, NOTHING_HELD);
    }

    /** Removes waiting {@code t} (cancelled); returns the request of its connection promoted in its place. */
    Ticket removeWaiting(Ticket t) {
        runnable.remove(t);
        return promote(t.exchange.connection);
    }

    /** Removes held {@code t} (cancelled). */
    void removeHeld(Ticket t) {
        lines.get(t.exchange.connection).remove(t);
    }

    /**
     * The connection's waiting request left the FIFO: its next held request, if any, takes its place at the
     * tail and is returned (it waits now), else null. (No link may take it here: the FIFO was not empty, so
     * none is idle or the limit binds.)
     */
    Ticket promote(Object connection) {
        ArrayDeque<Ticket> line = lines.remove(connection);
        if (line == null || line.isEmpty()) {
            return null;
        }
        Ticket next = line.poll();
        runnable.add(next);
        lines.put(connection, line);
        return next;
    }

    /**
     * Puts {@code t}, which its link never delivered, back at the FIFO's head. It is its connection's oldest,
     * so it is the connection's one request in the FIFO again: a successor promoted into the FIFO at its
     * dispatch goes back to the head of the connection's held line, and is returned (it is held now), else
     * null.
     */
    Ticket requeue(Ticket t) {
        Object connection = t.exchange.connection;
        ArrayDeque<Ticket> line = lines.get(connection);
        Ticket demoted = null;
        if (line == null) {
            lines.put(connection, NOTHING_HELD);
        } else {
            for (Iterator<Ticket> it = runnable.iterator(); it.hasNext(); ) {
                Ticket successor = it.next();
                if (successor.exchange.connection == connection) {
                    it.remove();
                    if (line == NOTHING_HELD) {
                        line = new ArrayDeque<>(2);
                        lines.put(connection, line);
                    }
                    line.addFirst(successor);
                    demoted = successor;
                    break;
                }
            }
        }
        runnable.addFirst(t);
        return demoted;
    }

    /** Removes and returns the oldest waiting request {@code slot} may run ({@link SlotRoster#mayRun}), or null. */
    Ticket poll(Slot slot, SlotRoster roster) {
        Ticket first = runnable.peekFirst();
        if (first == null || roster.mayRun(slot, first)) {
            return runnable.pollFirst();
        }
        for (Iterator<Ticket> it = runnable.iterator(); it.hasNext(); ) {
            Ticket t = it.next();
            if (roster.mayRun(slot, t)) {
                it.remove();
                return t;
            }
        }
        return null;
    }

    /** The oldest waiting request, or null. */
    Ticket oldest() {
        return runnable.peekFirst();
    }

    boolean isEmpty() {
        return runnable.isEmpty();
    }

    /** Removes every waiting and held request and returns them, the FIFO's first (the drain's refusal). */
    List<Ticket> clear() {
        List<Ticket> all = new ArrayList<>(runnable);
        for (ArrayDeque<Ticket> line : lines.values()) {
            all.addAll(line);
        }
        runnable.clear();
        lines.clear();
        return all;
    }
}
