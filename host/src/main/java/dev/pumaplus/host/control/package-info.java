/**
 * The control room: the operator's surface — the control app's routes (/stats, /metrics, /gc, /restart,
 * /phased-restart, /controller ...), the Prometheus exposition, the live dashboard and its feed, and the
 * controller bundle endpoint. It answers from what the host measures; it never sits in a request's path.
 *
 * <p>May use: measure, the link room's event loops, framework (bundle updates) and from the queue room only
 * {@link dev.pumaplus.host.queue.QueueReadout} and the records it returns (snapshot, process status) —
 * never the dispatcher, its exchanges or links (RoomRulesTest holds this). Must never touch:
 * lifecycle, config or boot; actions (restart, scale) arrive as callbacks from boot.
 */
package dev.pumaplus.host.control;
