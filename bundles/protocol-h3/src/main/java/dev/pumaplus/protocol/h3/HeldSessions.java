/*
 * Every WebTransport session one HTTP/3 listener's connections hold, so that a graceful stop can close them
 * the way the host closes held WebSockets (respond step: 1001, going away) before the QUIC connections go.
 */
package dev.pumaplus.protocol.h3;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Thread-safe. */
final class HeldSessions {

    /** RFC 6455 §7.4.1's "going away", as the host closes held WebSockets on a graceful stop. */
    static final int GOING_AWAY = 1001;

    private final Set<WebTransportSession> sessions = ConcurrentHashMap.newKeySet();

    void add(WebTransportSession session) {
        sessions.add(session);
    }

    void remove(WebTransportSession session) {
        sessions.remove(session);
    }

    /**
     * Sends every held session CLOSE_WEBTRANSPORT_SESSION with 1001 and waits, at most {@code timeoutMillis},
     * until each capsule is written; a session then ending without the client's answer (its connection
     * closed) still reports 1001. Blocks the calling thread (the host's stop sequence).
     */
    void closeAll(long timeoutMillis) {
        List<CompletableFuture<Void>> written = sessions.stream()
                .map(session -> session.closeSession(GOING_AWAY, "server going away")).toList();
        try {
            CompletableFuture.allOf(written.toArray(CompletableFuture[]::new)).get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // what was not written by then goes with the connection
        }
    }
}
