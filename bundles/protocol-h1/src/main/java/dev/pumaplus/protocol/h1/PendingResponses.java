/*
 * The responses one HTTP/1.1 connection owes, in request order (respond): the oldest writes, the ones behind
 * it hold their output until it is done. H1ConnectionHandler adds one per request and moves the line on as
 * each completes.
 */
package dev.pumaplus.protocol.h1;

import java.util.ArrayDeque;

/**
 * A pipelined request's response may be ready before an earlier one's; HTTP/1.1 answers in request order
 * (RFC 9112 §9.3.2), so only the head of this line writes to the channel and the others keep what they
 * are given ({@link PendingResponse#becomeHeadOfLine()} writes it when their turn comes). Event loop only.
 */
final class PendingResponses {

    /** Oldest first; the first is the one being written. */
    private final ArrayDeque<PendingResponse> line = new ArrayDeque<>();

    /** Adds the response to the request just read; it is head of line at once if none is before it. */
    void add(PendingResponse response) {
        line.add(response);
        if (line.size() == 1) {
            response.becomeHeadOfLine();
        }
    }

    boolean isHead(PendingResponse response) {
        return line.peekFirst() == response;
    }

    /** The newest response, or null. */
    PendingResponse newest() {
        return line.peekLast();
    }

    int size() {
        return line.size();
    }

    boolean isEmpty() {
        return line.isEmpty();
    }

    /**
     * The head completed: drops it and makes the next one head, and so on past each one that was already
     * complete.
     *
     * @return true when a dropped response closes the connection after it (the ones behind it stay here)
     */
    boolean advance() {
        while (true) {
            PendingResponse done = line.poll();
            if (done.closesAfter()) {
                return true;
            }
            PendingResponse next = line.peekFirst();
            if (next == null || !next.becomeHeadOfLine()) {
                return false;
            }
        }
    }

    /** Drops the head without completing it: the connection left HTTP/1.1 after it (hijack, WebSocket). */
    void dropHead() {
        line.poll();
    }

    /** Cancels every response still here: they can never be answered on this connection. */
    void cancelAll() {
        PendingResponse response;
        while ((response = line.poll()) != null) {
            response.cancel();
        }
    }
}
