/*
 * A protocol bundle's handle on one request it submitted whole (parse → queue → ... → respond): resumes a
 * paused response, cancels, and reports when the response's last byte was sent.
 */
package dev.pumaplus.spi;

/** One submitted request, as the protocol that submitted it sees it. Thread-safe. */
public interface Exchange {

    /**
     * The sink can take more response body after {@link ResponseSink#body} returned false: the host delivers
     * what it held for the sink meanwhile (the worker never waits for the client: the host kept reading its
     * response into a buffer, then a spool file). Thread-safe and non-blocking; callable from any thread,
     * including from inside {@code body} itself. The host acts on it on the worker link's event loop, after
     * the call to {@code body} that returned false has been acted on, so a resume that races ahead of the
     * pause it answers still ends that pause. A resume while nothing is paused, or for an exchange whose
     * response was delivered in full or that was cancelled, does nothing.
     */
    void resumeResponse();

    /**
     * The client went away. A queued request is removed from the queue and never dispatched; for a
     * running one the rest of the response is discarded, held parts included. Idempotent.
     */
    void cancel();

    /**
     * The last byte of the response reached the client's socket (T6): called once by the protocol when the
     * write of the response's final part completed, from any thread (typically the client connection's
     * event loop). The host ends the request's timing there: total time is T6 − T1. Not called for a
     * response that was never written out in full (the client went away, the connection broke). Cheap and
     * non-blocking.
     *
     * @param flushedNanos T6, {@link System#nanoTime()} when the write completed
     */
    void responseSent(long flushedNanos);
}
