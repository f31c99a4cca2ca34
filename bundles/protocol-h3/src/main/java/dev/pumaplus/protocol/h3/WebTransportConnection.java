/*
 * The WebTransport sessions of one QUIC connection (docs/WEBTRANSPORT.md): an extended CONNECT with
 * :protocol webtransport goes to the host's WebSocket hub as an upgrade (parse → queue), and once the app
 * accepted it, the session's streams and datagrams are routed to it and its end reported, as a held
 * WebSocket's are.
 */
package dev.pumaplus.protocol.h3;

import dev.pumaplus.spi.Exchange;
import dev.pumaplus.spi.RequestHead;
import dev.pumaplus.spi.ResponseSink;
import dev.pumaplus.spi.WebSocketHub;
import io.netty.buffer.ByteBuf;
import io.netty.channel.FileRegion;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import tech.kwik.flupke.HttpStream;

/**
 * A session is its CONNECT stream's id. Its life:
 * <ol>
 *   <li>{@link #connect}: past {@link WebTransportLimits#sessionsPerConnection()} the CONNECT is answered 429;
 *       otherwise it is offered to the hub as an upgrade whose env is the CONNECT's (path, query, headers;
 *       {@code GET}, SERVER_PROTOCOL {@code HTTP/3}). The app's accept (101 with {@code puma-plus-websocket})
 *       is answered {@code :status 200} and the session held; any other answer goes to the client as the
 *       CONNECT's status, except a 101 without a valid accept and a 2xx (which the client would take for
 *       a session), both 502.</li>
 *   <li>Peer streams ({@link #unidirectionalStream}, {@link #bidirectionalStream}) and datagrams
 *       ({@link #datagram}) name their session; a stream naming one still being decided waits for it (at most
 *       {@link WebTransportLimits#bufferedStreams()} streams, {@link WebTransportLimits#bufferWait()} each),
 *       one naming no session is refused with WEBTRANSPORT_BUFFERED_STREAM_REJECTED, a datagram naming none is
 *       dropped. An id that cannot be a CONNECT stream (not client-initiated bidirectional) closes the QUIC
 *       connection with H3_ID_ERROR, a datagram without a whole quarter stream id with H3_DATAGRAM_ERROR.</li>
 *   <li>The session ends with its CONNECT stream ({@link WebTransportSession}).</li>
 * </ol>
 *
 * <p>Threading: every method is called on a virtual thread of its own stream (Flupke's executor) and may
 * block it, except {@link #datagram}, which runs on the connection's datagram thread (Kwik's
 * {@code datagram-frame-handler}, one platform thread per QUIC connection from its first datagram on) and
 * never blocks.
 */
final class WebTransportConnection {

    private static final System.Logger LOG = System.getLogger("dev.pumaplus.protocol.h3");

    /** What a session needs of the QUIC and HTTP/3 connection beneath; the production one wraps Kwik's and Flupke's. */
    interface Transport {
        /** A new server-initiated unidirectional stream whose type (0x54) is already written. */
        HttpStream openUnidirectional() throws IOException;

        /**
         * One QUIC DATAGRAM frame, handed to the sender or dropped at once, never queued here: false when it
         * was dropped (larger than the peer's max_datagram_frame_size or one packet allows, the peer takes
         * none, or the connection is closing). Any thread; never blocks.
         */
        boolean sendDatagram(byte[] frame);

        /** Closes the QUIC connection with an HTTP/3 error code. */
        void close(long errorCode, String reason);
    }

    private final Transport transport;
    private final WebSocketHub hub;
    private final WebTransportLimits limits;
    private final InetSocketAddress local;
    private final InetSocketAddress remote;
    private final HeldSessions listenerSessions;
    private final Map<Long, WebTransportSession> sessions = new ConcurrentHashMap<>();
    /** Sessions whose CONNECT arrived and is being decided, and streams waiting for a session: keyed by its id. */
    private final Map<Long, CompletableFuture<WebTransportSession>> decisions = new ConcurrentHashMap<>();
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicInteger buffered = new AtomicInteger();
    private final AtomicLong datagramsDropped = new AtomicLong();

    /** @param listenerSessions every session of the listener, which this connection's join while held */
    WebTransportConnection(Transport transport, WebSocketHub hub, WebTransportLimits limits, InetSocketAddress local,
            InetSocketAddress remote, HeldSessions listenerSessions) {
        this.listenerSessions = listenerSessions;
        this.transport = transport;
        this.hub = hub;
        this.limits = limits;
        this.local = local;
        this.remote = remote;
    }

    WebTransportLimits limits() {
        return limits;
    }

    Transport transport() {
        return transport;
    }

    /** Datagrams dropped since the connection began: no such session, paused, or over the message limit. */
    long datagramsDropped() {
        return datagramsDropped.get();
    }

    /** Sessions held now. */
    int held() {
        return sessions.size();
    }

    /** Client streams of this connection's sessions being read now. */
    int streamsReading() {
        return sessions.values().stream().mapToInt(WebTransportSession::streamsReading).sum();
    }

    /**
     * An extended CONNECT with {@code :protocol webtransport} on {@code stream}: decides it with the app and,
     * when accepted, serves the session until it ends. Blocks the calling (stream's) thread throughout.
     *
     * @param headers the request's fields, {@code host} first (from {@code :authority}), no pseudo-headers
     * @param status  writes the CONNECT's response status (Flupke's: 200 leaves the stream open)
     */
    void connect(String pathAndQuery, List<Map.Entry<String, String>> headers, IntConsumer status, HttpStream stream) {
        long id = stream.getStreamId();
        if (open.incrementAndGet() > limits.sessionsPerConnection()) {
            open.decrementAndGet();
            status.accept(429);
            hub.refused(WebSocketHub.Refusal.SESSION);
            reject(id);
            return;
        }
        WebTransportSession held = null;
        try {
            long now = System.nanoTime();
            RequestHead head = new RequestHead("GET", pathAndQuery, "HTTP/3", "https", local, remote, headers, now, now);
            UpgradeSink sink = new UpgradeSink();
            Exchange upgrade = hub.offer(this, head, sink);
            Answer answer;
            try {
                answer = sink.answer.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                answer = new Answer(500, null);
            } catch (ExecutionException e) {
                answer = new Answer(500, null);
            }
            if (answer.sticky() == null) {
                // A 101 without a valid accept, or a 2xx (which would tell the client it has a session): 502.
                int refusal = answer.status();
                status.accept(refusal == 101 || (refusal >= 200 && refusal < 300) ? 502 : refusal);
                reject(id);
                return;
            }
            status.accept(200);
            WebTransportSession session = new WebTransportSession(this, id, stream);
            // Held (its open event queued) before its streams and datagrams are let in: they report to the hub.
            session.held(hub.hold(upgrade, answer.sticky(), session));
            sessions.put(id, session);
            listenerSessions.add(session);
            held = session;
            decision(id).complete(session);
            session.readCapsules();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "webtransport session " + id + " failed", e);
            throw e;
        } finally {
            if (held != null) {
                ended(held); // it already has, unless it failed
            }
            decisions.remove(id);
            open.decrementAndGet();
        }
    }

    private void reject(long id) {
        CompletableFuture<WebTransportSession> waiting = decisions.remove(id);
        if (waiting != null) {
            waiting.complete(null);
        }
    }

    private CompletableFuture<WebTransportSession> decision(long id) {
        return decisions.computeIfAbsent(id, k -> new CompletableFuture<>());
    }

    /** A peer unidirectional stream of type 0x54; its type is read, its session id next. */
    void unidirectionalStream(HttpStream stream) {
        route(stream);
    }

    /** A peer bidirectional stream whose first varint is 0x41 (still unread), its session id next. */
    void bidirectionalStream(HttpStream stream) {
        try {
            long type = QuicVarint.read(stream.getInputStream());
            if (type != WebTransportCodes.FRAME_TYPE_WEBTRANSPORT_STREAM) {
                refuse(stream, WebTransportCodes.H3_GENERAL_PROTOCOL_ERROR);
                return;
            }
        } catch (IOException e) {
            refuse(stream, WebTransportCodes.H3_GENERAL_PROTOCOL_ERROR);
            return;
        }
        route(stream);
    }

    private void route(HttpStream stream) {
        long id;
        try {
            id = QuicVarint.read(stream.getInputStream());
        } catch (IOException e) {
            id = -1;
        }
        if (id < 0) {
            refuse(stream, WebTransportCodes.H3_GENERAL_PROTOCOL_ERROR); // ended before naming its session
            return;
        }
        if (!isConnectStream(id)) {
            refuse(stream, WebTransportCodes.H3_ID_ERROR);
            transport.close(WebTransportCodes.H3_ID_ERROR, "stream names session " + id + ", not a request stream");
            return;
        }
        WebTransportSession session = sessions.get(id);
        if (session == null) {
            session = await(id);
        }
        if (session == null) {
            refuse(stream, WebTransportCodes.WEBTRANSPORT_BUFFERED_STREAM_REJECTED);
            hub.refused(WebSocketHub.Refusal.STREAM);
            return;
        }
        session.readStream(stream);
    }

    /** The session {@code id} once decided, waiting within the buffered-stream limits; null: none. */
    private WebTransportSession await(long id) {
        if (buffered.incrementAndGet() > limits.bufferedStreams()) {
            buffered.decrementAndGet();
            return null;
        }
        try {
            return decision(id).get(limits.bufferWait().toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } finally {
            buffered.decrementAndGet();
            if (!sessions.containsKey(id)) {
                decisions.computeIfPresent(id, (k, f) -> f.isDone() ? f : null); // a stream's own wait ends
            }
        }
    }

    /** RFC 9000 §2.1: a CONNECT stream is client-initiated and bidirectional, its id's two low bits 00. */
    static boolean isConnectStream(long id) {
        return (id & 0x3) == 0;
    }

    /** A QUIC DATAGRAM frame's content. The connection's datagram thread: never blocks. */
    void datagram(byte[] frame) {
        DatagramCodec.Datagram datagram = DatagramCodec.decode(frame);
        if (datagram == null) {
            transport.close(WebTransportCodes.H3_DATAGRAM_ERROR, "datagram without a quarter stream id");
            return;
        }
        WebTransportSession session = sessions.get(datagram.sessionId());
        if (session == null || !session.datagram(datagram.payload())) {
            datagramsDropped.incrementAndGet();
            hub.refused(WebSocketHub.Refusal.DATAGRAM);
        }
    }

    /** A datagram the app sent was dropped unsent: the hub counts it (docs/METRICS.md). */
    void datagramUnsent() {
        hub.refused(WebSocketHub.Refusal.DATAGRAM_UNSENT);
    }

    /** A session refused a client stream: the hub counts it (docs/METRICS.md). */
    void streamRefused() {
        hub.refused(WebSocketHub.Refusal.STREAM);
    }

    /** The session ended: it leaves the connection. */
    void ended(WebTransportSession session) {
        sessions.remove(session.id(), session);
        listenerSessions.remove(session);
    }

    static void refuse(HttpStream stream, long code) {
        stream.abortReading(code);
        if (stream.isBidirectional()) {
            stream.resetStream(code);
        }
    }

    /** The app's answer to an upgrade: its status, and its routing when it accepted. */
    private record Answer(int status, Boolean sticky) {
    }

    /**
     * The upgrade's response: only its status and accept header matter (the CONNECT's response is written by
     * this class); its body is dropped. Host threads.
     */
    private static final class UpgradeSink implements ResponseSink {
        final CompletableFuture<Answer> answer = new CompletableFuture<>();

        @Override
        public void head(int status, List<Map.Entry<String, String>> headers, boolean endOfStream) {
            answer.complete(new Answer(status, status == 101 ? WebSocketHub.routing(headers) : null));
        }

        @Override
        public boolean body(ByteBuf chunk, boolean endOfStream) {
            chunk.release();
            return true;
        }

        @Override
        public void fail(int status, String reason, boolean headSent) {
            answer.complete(new Answer(status, null));
        }

        @Override
        public boolean file(FileRegion region, boolean endOfStream) {
            region.release();
            return true;
        }
    }
}
