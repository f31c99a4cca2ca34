/*
 * The host's service for WebSocket connections it holds (docs/WEBSOCKETS.md): a protocol submits a
 * handshake request through it, hands over the connection once the app accepted, and then reports the
 * connection's messages, which the hub queues as requests (parse → queue → dispatch, like any request).
 */
package dev.pumaplus.spi;

import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketServerExtension;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * Registered as an OSGi service by the host. Every protocol that can hold a WebSocket (HTTP/1.1, and h2's
 * extended CONNECT) uses it the same way:
 * <ol>
 *   <li>{@link #offer}: a valid handshake request goes to the queue marked as an upgrade
 *       ({@code puma_plus.websocket.event = upgrade}); past {@link WebSocketSettings#maxConnections()} held
 *       WebSocket connections, or {@link WebTransportSettings#maxSessions()} held WebTransport sessions (an
 *       upgrade over HTTP/3), the host answers 503 itself: the two are counted apart.</li>
 *   <li>The app accepts with status 101 and {@link #ACCEPT_HEADER} ({@link #routing}); the protocol answers
 *       the handshake (HTTP/1.1: a 101 with {@link #acceptKey}; h2: {@code :status 200}) with the
 *       extension {@link #negotiateDeflate} agreed, and has the hub install the WebSocket codec on the
 *       connection and hold it ({@link #install}).</li>
 *   <li>Each message goes to {@link WebSocketSession#message}; the closed connection to
 *       {@link WebSocketSession#closed}.</li>
 * </ol>
 * Threading: every method is thread-safe.
 */
public interface WebSocketHub {

    /** The response header with which the app accepts: {@code sticky} or {@code flexible}. */
    String ACCEPT_HEADER = "puma-plus-websocket";

    /** RFC 6455 §1.3: the GUID appended to the client's key. */
    String ACCEPT_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

    /**
     * Submits a WebSocket handshake request, as {@link RequestQueue#submit} with a complete (empty) body, its
     * env marked as an upgrade. Beyond the limit of its kind (WebSocket connections or WebTransport sessions)
     * the sink gets the host's 503 at once.
     */
    Exchange offer(Object connection, RequestHead head, ResponseSink sink);

    /**
     * Holds an accepted connection: the hub gives it an id, queues its {@code open} event and returns the
     * session the protocol reports to. {@code upgrade} is the exchange {@link #offer} returned (sticky
     * routing binds to the worker process that ran it).
     */
    WebSocketSession hold(Exchange upgrade, boolean sticky, WebSocketPeer peer);

    /**
     * permessage-deflate (RFC 7692) for the offer in the {@code Sec-WebSocket-Extensions} field of a client's
     * {@code handshake} (none without the field): the agreed extension, its answer added to {@code responseHeaders}; or null. Its decoder fails (1009) a frame
     * that inflates past {@link WebSocketSettings#maxMessage()} and a little slack, since the frame decoder's
     * limit bounds only the compressed bytes. Any thread. A hub that holds no WebSocket connections of its own
     * (one that serves only WebTransport sessions) need not offer it.
     */
    default WebSocketServerExtension negotiateDeflate(RequestHead handshake,
                                                      List<Map.Entry<String, String>> responseHeaders) {
        throw new UnsupportedOperationException("this hub holds no WebSocket connections");
    }

    /**
     * Adds the RFC 6455 server codec after the handler named {@code after}: frame encoder and decoder (masked
     * frames, {@link WebSocketSettings#maxMessage()} per frame), the {@code deflate} extension when one was
     * agreed (or null), UTF-8 validation of text, fragments joined up to the same limit, the ping timer, and
     * last the connection's {@link HeldWebSocket}; then holds the connection as {@link #hold} with
     * {@code upgrade} and {@code sticky}, and returns the handler. A close frame waits behind what is pending
     * and the socket closes when the client answers it or after {@code write_timeout}; a message that would
     * take the pending outbound bytes past {@link WebSocketSettings#outboundLimit()} closes the connection
     * with 1008. The pipeline below {@code after} must carry the connection's bytes as ByteBufs. The
     * channel's event loop. A hub that holds no WebSocket connections of its own need not offer it.
     */
    default HeldWebSocket install(ChannelPipeline pipeline, String after, WebSocketServerExtension deflate,
                                  Exchange upgrade, boolean sticky) {
        throw new UnsupportedOperationException("this hub holds no WebSocket connections");
    }

    /**
     * What a protocol turned away of the WebTransport sessions it serves, each counted by the hub for
     * {@code /stats} and {@code /metrics} (docs/METRICS.md).
     */
    enum Refusal {
        /** A CONNECT past its QUIC connection's session limit, answered 429. */
        SESSION,
        /** A client stream refused: past its session's stream limit, or naming no session. */
        STREAM,
        /** A datagram dropped on arrival: no such session, its events wait, or over the message limit. */
        DATAGRAM,
        /**
         * A datagram the app sent, dropped unsent: larger than the peer's max_datagram_frame_size or one
         * packet allows, or the peer takes none.
         */
        DATAGRAM_UNSENT
    }

    /** Counts one {@code refusal}. Never blocks; any thread (a QUIC receiver's among them). */
    void refused(Refusal refusal);

    /**
     * The routing an app's accept response names: {@code true} for sticky, {@code false} for flexible, null
     * when the headers hold no (valid) {@link #ACCEPT_HEADER}.
     */
    static Boolean routing(List<Map.Entry<String, String>> headers) {
        for (Map.Entry<String, String> header : headers) {
            if (header.getKey().equalsIgnoreCase(ACCEPT_HEADER)) {
                return switch (header.getValue().trim()) {
                    case "sticky" -> Boolean.TRUE;
                    case "flexible" -> Boolean.FALSE;
                    default -> null;
                };
            }
        }
        return null;
    }

    /** {@code Sec-WebSocket-Accept} for a client's {@code Sec-WebSocket-Key} (RFC 6455 §4.2.2). */
    static String acceptKey(String key) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1")
                    .digest((key.trim() + ACCEPT_GUID).getBytes(StandardCharsets.US_ASCII));
            return Base64.getEncoder().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-1", e);
        }
    }
}
