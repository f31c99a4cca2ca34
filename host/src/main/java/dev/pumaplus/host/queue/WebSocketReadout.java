/*
 * The WebSocket hub's read-only face for the control room (beside the request path): how many connections and
 * WebTransport sessions it holds and what the protocols turned away, never a connection itself.
 */
package dev.pumaplus.host.queue;

/**
 * What the control room may know of the held connections ({@code /stats}' {@code websockets}, the
 * {@code puma_plus_websocket*} and {@code puma_plus_webtransport_*} families of {@code /metrics};
 * docs/METRICS.md). {@link WebSockets} implements it. Thread-safe.
 */
public interface WebSocketReadout {

    /** The counts now; each is read on its own, so two may be a moment apart. Any thread. */
    WebSocketCounts counts();

    /**
     * @param webSockets           WebSocket connections held now
     * @param webTransportSessions WebTransport sessions held now
     * @param sessionsRefused      since start: WebTransport CONNECTs a protocol refused past its connection's
     *                             session limit (429); the host's own 503s past {@code webtransport_max_sessions}
     *                             are in the request counts
     * @param streamsRefused       since start: WebTransport client streams refused (past a session's stream
     *                             limit, or naming no session)
     * @param datagramsDropped     since start: WebTransport datagrams dropped on arrival (no such session, its
     *                             events wait, or over the message limit)
     * @param datagramsUnsent      since start: WebTransport datagrams the app sent that were dropped unsent
     *                             (larger than the client's max_datagram_frame_size or one packet allows)
     */
    record WebSocketCounts(int webSockets, int webTransportSessions, long sessionsRefused, long streamsRefused,
            long datagramsDropped, long datagramsUnsent) {
    }
}
