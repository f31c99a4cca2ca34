/*
 * The host's one registry of held WebSocket connections and their channels (the WebSocketHub service,
 * docs/WEBSOCKETS.md): it submits each connection's events to admission as requests, one at a time per
 * connection (parse → queue), and applies the apps' WS_COMMAND frames, which worker links hand it.
 */
package dev.pumaplus.host.queue;

import dev.pumaplus.host.measure.QueueMetrics;
import dev.pumaplus.spi.ConnectionSettings;
import dev.pumaplus.spi.Exchange;
import dev.pumaplus.spi.HeldWebSocket;
import dev.pumaplus.spi.RequestHead;
import dev.pumaplus.spi.ResponseSink;
import dev.pumaplus.spi.WebSocketHub;
import dev.pumaplus.spi.WebSocketPeer;
import dev.pumaplus.spi.WebSocketSession;
import dev.pumaplus.spi.WebSocketSettings;
import dev.pumaplus.spi.WebTransportSettings;
import dev.pumaplus.wire.WebSocketCommand;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketServerExtension;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Every held connection is a {@link Session} under its id; every channel a set of sessions. Events (open,
 * message, close) are requests built from the upgrade request's head with {@code puma_plus.websocket.*}
 * entries added to its env, submitted through {@link Admission} like any request (queue time, shedding, the
 * autoscaler's signals). A session submits its next event only when the response to the previous one has
 * ended, so a connection's events reach the app one at a time and in order, whatever the routing; while
 * {@link #MAX_WAITING_EVENTS} wait, its protocol stops reading the client.
 *
 * <p>Routing: a sticky session's events are submitted with the pid of the worker process that ran its
 * upgrade (then of the one that ran its last event: when that process is gone the dispatcher lets any link
 * take the event, and the session follows the process that did); a flexible session's with none.
 *
 * <p>An event the host could not deliver ends its connection: one answered by the host at admission (shed,
 * or refused while stopping) with 1013, one that failed on its worker (the process died) with 1011. The
 * event's response is otherwise discarded; the app talks to connections through WS_COMMAND ({@link #apply}).
 * A datagram or stream command for a connection that has none (a WebSocket's peer refuses it) sends nothing
 * and is logged as a warning.
 *
 * <p>Threading: every method is thread-safe; a session's event queue is guarded by the session itself.
 */
public final class WebSockets implements WebSocketHub, WebSocketReadout {

    /** Events of one connection that may wait before its protocol stops reading it. */
    static final int MAX_WAITING_EVENTS = 16;

    private static final System.Logger LOG = System.getLogger(WebSockets.class.getName());

    static final String ID = "puma_plus.websocket.id";
    static final String EVENT = "puma_plus.websocket.event";
    static final String TYPE = "puma_plus.websocket.type";
    static final String CLOSE_CODE = "puma_plus.websocket.close_code";
    static final String STREAM_ID = "puma_plus.websocket.stream_id";

    private final Admission admission;
    private final QueueMetrics metrics;
    private final AtomicLong ids = new AtomicLong();
    private final AtomicInteger held = new AtomicInteger();
    /** Of {@link #held}, the WebTransport sessions (an upgrade over HTTP/3: docs/WEBTRANSPORT.md). */
    private final AtomicInteger heldWebTransport = new AtomicInteger();
    private final AtomicLong sessionsRefused = new AtomicLong();
    private final AtomicLong streamsRefused = new AtomicLong();
    private final AtomicLong datagramsDropped = new AtomicLong();
    private final AtomicLong datagramsUnsent = new AtomicLong();
    private final Map<Long, Session> sessions = new ConcurrentHashMap<>();
    private final Map<String, Set<Session>> channels = new ConcurrentHashMap<>();
    private volatile int maxSessions = WebTransportSettings.DEFAULT_MAX_SESSIONS;
    private volatile WebSocketSettings settings = new WebSocketSettings(WebSocketSettings.DEFAULT_MAX_MESSAGE,
            WebSocketSettings.DEFAULT_OUTBOUND_LIMIT, WebSocketSettings.DEFAULT_PING_INTERVAL,
            WebSocketSettings.DEFAULT_MAX_CONNECTIONS);
    private volatile long writeTimeoutSecs = ConnectionSettings.DEFAULT_WRITE_TIMEOUT.toSeconds();

    /** @param metrics where the host's own 503 for an upgrade beyond the limit is counted */
    public WebSockets(Admission admission, QueueMetrics metrics) {
        this.admission = admission;
        this.metrics = metrics;
    }

    /**
     * Config {@code websocket_max_connections} and the codec's limits ({@code websocket_max_message},
     * {@code websocket_outbound_limit}, {@code websocket_ping_interval}), {@code webtransport_max_sessions};
     * {@code writeTimeoutSecs} ({@code write_timeout}): how long a closing connection's close frame may wait.
     */
    public void configure(WebSocketSettings settings, WebTransportSettings webTransport, long writeTimeoutSecs) {
        this.settings = settings;
        maxSessions = webTransport.maxSessions();
        this.writeTimeoutSecs = writeTimeoutSecs;
    }

    /** Connections held now. Any thread. */
    int held() {
        return held.get();
    }

    /**
     * Graceful stop, after the protocols started every held connection's closing handshake: waits until no
     * connection is held (their close events are queued by then), at most {@code timeoutNanos}. Blocks the
     * calling thread (the launcher's).
     *
     * @return the nanoseconds of {@code timeoutNanos} left
     */
    public long awaitClosed(long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        synchronized (held) {
            long left;
            while (held.get() > 0 && (left = deadline - System.nanoTime()) > 0) {
                try {
                    held.wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        return Math.max(0, deadline - System.nanoTime());
    }

    @Override
    public void refused(Refusal refusal) {
        switch (refusal) {
            case SESSION -> sessionsRefused.incrementAndGet();
            case STREAM -> streamsRefused.incrementAndGet();
            case DATAGRAM -> datagramsDropped.incrementAndGet();
            case DATAGRAM_UNSENT -> datagramsUnsent.incrementAndGet();
            default -> throw new IllegalArgumentException(refusal.toString());
        }
    }

    @Override
    public WebSocketCounts counts() {
        int sessions = heldWebTransport.get();
        return new WebSocketCounts(Math.max(0, held.get() - sessions), sessions, sessionsRefused.get(),
                streamsRefused.get(), datagramsDropped.get(), datagramsUnsent.get());
    }

    @Override
    public Exchange offer(Object connection, RequestHead head, ResponseSink sink) {
        boolean webTransport = isWebTransport(head);
        int sessions = heldWebTransport.get();
        if (webTransport ? sessions >= maxSessions : held.get() - sessions >= settings.maxConnections()) {
            metrics.countStatus(503);
            HostAnswer.write(sink, 503, List.of(Map.entry("Retry-After", "1")), webTransport
                    ? "too many WebTransport sessions (" + maxSessions + ")\n"
                    : "too many WebSocket connections (" + settings.maxConnections() + ")\n");
            return HostAnswer.DONE;
        }
        return admission.submit(connection, head, Unpooled.EMPTY_BUFFER, null, sink,
                List.of(Map.entry(EVENT, "upgrade")), 0);
    }

    @Override
    public WebSocketSession hold(Exchange upgrade, boolean sticky, WebSocketPeer peer) {
        QueuedExchange ex = (QueuedExchange) upgrade; // offer returned it: a HostAnswer is never accepted
        Session session = new Session(ids.incrementAndGet(), ex.head, sticky, ex.workerPid(), peer);
        held.incrementAndGet();
        if (session.webTransport) {
            heldWebTransport.incrementAndGet();
        }
        sessions.put(session.id, session);
        session.enqueue(new Event("open", null, -1, Unpooled.EMPTY_BUFFER, System.nanoTime(), 0));
        return session;
    }

    @Override
    public WebSocketServerExtension negotiateDeflate(RequestHead handshake,
                                                     List<Map.Entry<String, String>> responseHeaders) {
        String offered = null;
        for (Map.Entry<String, String> field : handshake.headers()) {
            if (field.getKey().equalsIgnoreCase("sec-websocket-extensions")) {
                offered = field.getValue();
                break;
            }
        }
        return HeldWebSocketHandler.negotiateDeflate(offered, settings, responseHeaders);
    }

    @Override
    public HeldWebSocket install(ChannelPipeline pipeline, String after, WebSocketServerExtension deflate,
                                 Exchange upgrade, boolean sticky) {
        HeldWebSocketHandler handler = HeldWebSocketHandler.install(pipeline, after, settings, writeTimeoutSecs, deflate);
        handler.held(hold(upgrade, sticky, handler));
        return handler;
    }

    /**
     * Applies one WS_COMMAND from a worker link, on that link's event loop, in the order the link received
     * them. A command for a connection no longer held does nothing.
     */
    void apply(WebSocketCommand command) {
        switch (command.op()) {
            case WebSocketCommand.SEND_TEXT, WebSocketCommand.SEND_BINARY -> {
                Session session = sessions.get(command.connection());
                if (session != null) {
                    session.peer.send(command.op() == WebSocketCommand.SEND_BINARY,
                            Unpooled.wrappedBuffer(command.data()));
                }
            }
            case WebSocketCommand.BROADCAST_TEXT, WebSocketCommand.BROADCAST_BINARY -> {
                Set<Session> members = channels.get(command.channel());
                if (members != null) {
                    boolean binary = command.op() == WebSocketCommand.BROADCAST_BINARY;
                    for (Session member : members) {
                        // Each peer gets its own read-only view of the one array: nothing writes into it.
                        member.peer.send(binary, Unpooled.wrappedBuffer(command.data()));
                    }
                }
            }
            case WebSocketCommand.JOIN -> {
                Session session = sessions.get(command.connection());
                if (session != null) {
                    join(session, command.channel());
                }
            }
            case WebSocketCommand.LEAVE -> {
                Session session = sessions.get(command.connection());
                if (session != null) {
                    leave(session, command.channel());
                }
            }
            case WebSocketCommand.CLOSE -> {
                Session session = sessions.get(command.connection());
                if (session != null) {
                    session.peer.close(command.code(), new String(command.data(), StandardCharsets.UTF_8));
                }
            }
            case WebSocketCommand.SEND_DATAGRAM -> {
                Session session = sessions.get(command.connection());
                if (session != null && !session.peer.sendDatagram(Unpooled.wrappedBuffer(command.data()))) {
                    refused(command, "SEND_DATAGRAM");
                }
            }
            case WebSocketCommand.SEND_STREAM -> {
                Session session = sessions.get(command.connection());
                if (session != null && !session.peer.sendStream(command.streamId(),
                        Unpooled.wrappedBuffer(command.streamBytes()), command.code() == WebSocketCommand.FIN)) {
                    refused(command, "SEND_STREAM");
                }
            }
            default -> throw new IllegalArgumentException("op " + command.op()); // the codec admits no other
        }
    }

    /** An upgrade over HTTP/3 is a WebTransport session's (docs/WEBTRANSPORT.md); any other, a WebSocket's. */
    private static boolean isWebTransport(RequestHead upgrade) {
        return "HTTP/3".equals(upgrade.protocol());
    }

    /** A datagram or stream command for a WebSocket, which has neither: nothing is sent, the app's mistake logged. */
    private static void refused(WebSocketCommand command, String op) {
        LOG.log(System.Logger.Level.WARNING, "WS_COMMAND " + op + " for connection " + command.connection()
                + " refused: it is a WebSocket, and datagrams and streams are WebTransport's (docs/WEBTRANSPORT.md)");
    }

    private void join(Session session, String channel) {
        channels.compute(channel, (name, members) -> {
            Set<Session> set = members != null ? members : ConcurrentHashMap.newKeySet();
            set.add(session);
            return set;
        });
        session.joined.add(channel);
        if (!sessions.containsKey(session.id)) {
            leave(session, channel); // it closed meanwhile: closed() may have missed this channel
        }
    }

    private void leave(Session session, String channel) {
        session.joined.remove(channel);
        channels.computeIfPresent(channel, (name, members) -> {
            members.remove(session);
            return members.isEmpty() ? null : members;
        });
    }

    /**
     * One event of a held connection, waiting for its turn.
     *
     * @param type     a message's {@code puma_plus.websocket.type} ({@code text}, {@code binary}, {@code stream},
     *                 {@code datagram}), null for other events
     * @param streamId a stream message's QUIC stream id, else -1
     */
    private record Event(String kind, String type, long streamId, ByteBuf data, long arrivedNanos, int closeCode) {
    }

    /** One held connection: its upgrade head, routing, channels and the line of its events. */
    private final class Session implements WebSocketSession {
        final long id;
        final RequestHead upgrade;
        final boolean sticky;
        /** Its upgrade came over HTTP/3: a WebTransport session. */
        final boolean webTransport;
        final WebSocketPeer peer;
        final Set<String> joined = ConcurrentHashMap.newKeySet();
        /** The worker process its sticky events go to; the one that ran its upgrade, then its last event. */
        private volatile long pid;
        // guarded by this
        private final ArrayDeque<Event> waiting = new ArrayDeque<>();
        private boolean running;
        private boolean paused;
        private boolean closed;

        Session(long id, RequestHead upgrade, boolean sticky, long pid, WebSocketPeer peer) {
            this.id = id;
            this.upgrade = upgrade;
            this.sticky = sticky;
            this.webTransport = isWebTransport(upgrade);
            this.pid = pid;
            this.peer = peer;
        }

        @Override
        public long id() {
            return id;
        }

        @Override
        public void message(boolean binary, ByteBuf data, long arrivedNanos) {
            enqueue(new Event("message", binary ? "binary" : "text", -1, data, arrivedNanos, 0));
        }

        @Override
        public void streamMessage(long streamId, ByteBuf data, long arrivedNanos) {
            enqueue(new Event("message", "stream", streamId, data, arrivedNanos, 0));
        }

        @Override
        public void datagram(ByteBuf data, long arrivedNanos) {
            enqueue(new Event("message", "datagram", -1, data, arrivedNanos, 0));
        }

        @Override
        public void closed(int code) {
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
            }
            sessions.remove(id);
            for (String channel : new ArrayList<>(joined)) {
                leave(this, channel);
            }
            // Queued before the count drops, so a graceful stop that waits for the count drains this event too.
            enqueue(new Event("close", null, -1, Unpooled.EMPTY_BUFFER, System.nanoTime(), code));
            if (webTransport) {
                heldWebTransport.decrementAndGet();
            }
            if (held.decrementAndGet() == 0) {
                synchronized (held) {
                    held.notifyAll();
                }
            }
        }

        void enqueue(Event event) {
            Event next = null;
            boolean pause = false;
            synchronized (this) {
                waiting.add(event);
                if (!running) {
                    running = true;
                    next = waiting.poll();
                } else if (!paused && waiting.size() >= MAX_WAITING_EVENTS) {
                    paused = pause = true;
                }
            }
            if (pause) {
                peer.reading(false);
            }
            if (next != null) {
                submit(next);
            }
        }

        /** The response to the running event ended: the next one goes. */
        void eventDone() {
            Event next;
            boolean resume = false;
            synchronized (this) {
                next = waiting.poll();
                running = next != null;
                if (paused && waiting.size() < MAX_WAITING_EVENTS / 2) {
                    paused = false;
                    resume = true;
                }
            }
            if (resume) {
                peer.reading(true);
            }
            if (next != null) {
                submit(next);
            }
        }

        private void submit(Event event) {
            List<Map.Entry<String, String>> env = new ArrayList<>(5);
            env.add(Map.entry(ID, Long.toString(id)));
            env.add(Map.entry(EVENT, event.kind()));
            if (event.kind().equals("message")) {
                env.add(Map.entry(TYPE, event.type()));
                if (event.streamId() >= 0) {
                    env.add(Map.entry(STREAM_ID, Long.toString(event.streamId())));
                }
            } else if (event.kind().equals("close")) {
                env.add(Map.entry(CLOSE_CODE, Integer.toString(event.closeCode())));
            }
            RequestHead head = new RequestHead(upgrade.method(), upgrade.target(), upgrade.protocol(),
                    upgrade.scheme(), upgrade.local(), upgrade.remote(), upgrade.headers(), event.arrivedNanos(),
                    event.arrivedNanos());
            EventSink sink = new EventSink(this, event.kind().equals("close"));
            sink.submitting = Thread.currentThread();
            Exchange exchange = admission.submit(this, head, event.data(), null, sink, env, sticky ? pid : 0);
            sink.submitting = null;
            sink.submitted(exchange);
        }
    }

    /**
     * Where an event's response goes: discarded, its end noted. The event is over when both its response has
     * ended and {@code submit} has returned its exchange (either may come first: a worker can answer before
     * {@code submit} returns); then T6 is reported, a sticky session follows the process that ran it, and
     * the session's next event goes.
     */
    private static final class EventSink implements ResponseSink {
        private final Session session;
        private final boolean closeEvent;
        private final AtomicInteger parties = new AtomicInteger();
        /** The thread inside {@code submit}: a response arriving on it was written by the host at admission. */
        volatile Thread submitting;
        private volatile Exchange exchange;
        private volatile long endedNanos;

        EventSink(Session session, boolean closeEvent) {
            this.session = session;
            this.closeEvent = closeEvent;
        }

        void submitted(Exchange ex) {
            exchange = ex;
            if (parties.incrementAndGet() == 2) {
                complete();
            }
        }

        @Override
        public void head(int status, List<Map.Entry<String, String>> headers, boolean endOfStream) {
            if (Thread.currentThread() == submitting && !closeEvent) {
                session.peer.close(1013, "server busy");
            }
            if (endOfStream) {
                ended();
            }
        }

        @Override
        public boolean body(ByteBuf chunk, boolean endOfStream) {
            chunk.release();
            if (endOfStream) {
                ended();
            }
            return true;
        }

        @Override
        public void fail(int status, String reason, boolean headSent) {
            if (!closeEvent) {
                session.peer.close(1011, "event not delivered");
            }
            ended();
        }

        private void ended() {
            endedNanos = System.nanoTime();
            if (parties.incrementAndGet() == 2) {
                complete();
            }
        }

        private void complete() {
            Exchange ex = exchange;
            ex.responseSent(endedNanos);
            if (session.sticky && ex instanceof QueuedExchange queued && queued.workerPid() != 0) {
                session.pid = queued.workerPid();
            }
            session.eventDone();
        }
    }
}
