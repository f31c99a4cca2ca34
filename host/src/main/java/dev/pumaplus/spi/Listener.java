package dev.pumaplus.spi;

/**
 * A protocol bundle's client-facing listener, registered as an OSGi service so the host can drain it on a
 * graceful stop before the bundle itself is stopped.
 */
public interface Listener {

    /**
     * Stops accepting new connections and returns once the listening sockets are closed. Idle keep-alive
     * connections are closed; a busy connection finishes the requests already read (answering with
     * {@code Connection: close}) and then closes. Requests already submitted are not cancelled.
     */
    void stopAccepting();
}
