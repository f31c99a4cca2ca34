/*
 * Why a request head was refused at the parse step (accept → parse → queue → ...): thrown by H1HeadValidator,
 * carried to H1ConnectionHandler as the failed decoder result of the request, which answers its status.
 */
package dev.pumaplus.protocol.h1;

/**
 * Carries the status the client gets (400, 414, 431, 501 or 505, or {@link #UNANSWERED}) and the rule it broke. Stackless: a client
 * can cause one per connection at will, and the stack says nothing the message does not.
 */
final class RejectedRequestException extends RuntimeException {

    /** The status of a head that gets no response: the connection is closed. */
    static final int UNANSWERED = 0;

    private final int status;

    /**
     * @param status the response status
     * @param rule   the broken rule, with its RFC section (for tests and debugging; never sent to the client)
     */
    RejectedRequestException(int status, String rule) {
        super(rule, null, false, false);
        this.status = status;
    }

    /** The status to answer with, or {@link #UNANSWERED}. */
    int status() {
        return status;
    }
}
