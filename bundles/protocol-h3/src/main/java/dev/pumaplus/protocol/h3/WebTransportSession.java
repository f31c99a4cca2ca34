/*
 * One WebTransport session the host holds (docs/WEBTRANSPORT.md), as its protocol side: reads its CONNECT
 * stream's capsules and its peer streams and datagrams into the hub's session (parse → queue), and writes
 * what the hub sends and its close (respond).
 */
package dev.pumaplus.protocol.h3;

import dev.pumaplus.spi.WebSocketPeer;
import dev.pumaplus.spi.WebSocketSession;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import tech.kwik.flupke.HttpStream;

/**
 * The app's view is a held WebSocket's: every peer stream, read to its end, is one message
 * ({@link WebSocketSession#streamMessage}), and so is every datagram ({@link WebSocketSession#datagram});
 * each message the app sends ({@link #send}) leaves on a new server-initiated unidirectional stream of the
 * session. The app may also send datagrams ({@link #sendDatagram}) and write to streams ({@link #sendStream}):
 * a client's bidirectional stream stays open for its answer once read (at most
 * {@link WebTransportLimits#streamsPerSession()} of them wait so; beyond, its side is ended at once), and a
 * stream of the server's opens under the name the app gives it; each stays open until the app finishes it
 * or the session ends. The session ends, and the hub hears {@link WebSocketSession#closed} once, with:
 * <ul>
 *   <li>the code of the client's CLOSE_WEBTRANSPORT_SESSION;</li>
 *   <li>the app's code when it closed it ({@link #close}: the capsule, then FIN on the CONNECT stream);</li>
 *   <li>0 when the client ended the CONNECT stream without a capsule (draft-ietf-webtrans-http3 §6);</li>
 *   <li>1009 (as a WebSocket's) when a peer stream was longer than the message limit;</li>
 *   <li>1006 when the CONNECT stream broke: reset, the QUIC connection closed, or a capsule longer than
 *       {@link #MAX_CAPSULE} (the stream is then reset with H3_MESSAGE_ERROR).</li>
 * </ul>
 * Its open peer streams are then reset with WEBTRANSPORT_SESSION_GONE, and the streams the app may still write
 * are reset too. A code is an unsigned 32-bit number on
 * the wire; the hub takes an int, so one above 2^31-1 reaches the app as its two's complement.
 *
 * <p>Threading: reads run on the virtual threads of their streams; {@link WebSocketPeer} methods on any
 * thread never block: writes go in order through this session's own writer (one virtual thread at a time).
 */
final class WebTransportSession implements WebSocketPeer {

    /** A capsule's value at most, bytes: CLOSE_WEBTRANSPORT_SESSION's code and longest reason. */
    static final int MAX_CAPSULE = 4 + WebTransportCodes.MAX_CLOSE_REASON;
    static final int ABNORMAL = 1006;
    static final int MESSAGE_TOO_BIG = 1009;
    static final int POLICY_VIOLATION = 1008;

    private final WebTransportConnection connection;
    private final long id;
    private final HttpStream connect;
    private final Set<HttpStream> streams = ConcurrentHashMap.newKeySet();
    /** Streams the app may write, by QUIC id (a client's bidirectional one) or its name (one of ours). */
    private final Map<Long, Writable> writable = new ConcurrentHashMap<>();
    private final Writer writer = new Writer();
    private final AtomicLong pending = new AtomicLong();
    private final AtomicBoolean ended = new AtomicBoolean();
    private final Object gate = new Object();
    private volatile WebSocketSession session;
    private volatile boolean reading = true;
    /** The app's close went out (writer thread only writes it; read by the readers). */
    private volatile boolean closing;
    private volatile int closeCode = -1;

    WebTransportSession(WebTransportConnection connection, long id, HttpStream connect) {
        this.connection = connection;
        this.id = id;
        this.connect = connect;
    }

    long id() {
        return id;
    }

    /** Client streams of this session being read now. */
    int streamsReading() {
        return streams.size();
    }

    void held(WebSocketSession session) {
        this.session = session;
    }

    /**
     * Reads the CONNECT stream's capsules until it ends, then ends the session. Blocks the calling thread (the
     * CONNECT stream's).
     */
    void readCapsules() {
        int code;
        try {
            InputStream in = new DataFrameInputStream(connect.getInputStream());
            while (true) {
                CapsuleCodec.Capsule capsule = CapsuleCodec.read(in, MAX_CAPSULE);
                if (capsule == null) {
                    code = closeCode >= 0 ? closeCode : 0;
                    break;
                }
                if (capsule.type() == WebTransportCodes.CAPSULE_CLOSE_WEBTRANSPORT_SESSION) {
                    CapsuleCodec.Close close = CapsuleCodec.decodeClose(capsule.value());
                    if (close == null) {
                        connect.resetStream(WebTransportCodes.H3_MESSAGE_ERROR);
                        code = ABNORMAL;
                    } else {
                        code = (int) close.code();
                    }
                    break;
                }
                // Unknown capsules (a later draft's DRAIN_WEBTRANSPORT_SESSION among them) are skipped: RFC 9297 §3.2.
            }
        } catch (CapsuleCodec.TooLongException e) {
            connect.abortReading(WebTransportCodes.H3_MESSAGE_ERROR);
            connect.resetStream(WebTransportCodes.H3_MESSAGE_ERROR);
            code = ABNORMAL;
        } catch (IOException | RuntimeException e) {
            code = closeCode >= 0 ? closeCode : ABNORMAL;
        }
        end(code);
    }

    /** Reads one peer stream of this session to its end as one message. Blocks (the stream's thread). */
    void readStream(HttpStream stream) {
        long refusal = 0;
        synchronized (streams) { // the count and the add at once: concurrent streams cannot pass the limit together
            if (ended.get()) {
                refusal = WebTransportCodes.WEBTRANSPORT_SESSION_GONE;
            } else if (streams.size() >= connection.limits().streamsPerSession()) {
                refusal = WebTransportCodes.H3_EXCESSIVE_LOAD;
            } else {
                streams.add(stream);
            }
        }
        if (refusal != 0) {
            WebTransportConnection.refuse(stream, refusal);
            if (refusal == WebTransportCodes.H3_EXCESSIVE_LOAD) {
                connection.streamRefused();
            }
            return;
        }
        try {
            int max = connection.limits().maxMessage();
            ByteArrayOutputStream message = new ByteArrayOutputStream();
            byte[] buf = new byte[16 * 1024];
            InputStream in = stream.getInputStream();
            while (true) {
                awaitReading();
                int n = in.read(buf);
                if (n < 0) {
                    break;
                }
                if (message.size() + n > max) {
                    WebTransportConnection.refuse(stream, WebTransportCodes.H3_EXCESSIVE_LOAD);
                    connection.streamRefused();
                    close(MESSAGE_TOO_BIG, "message too big");
                    return;
                }
                message.write(buf, 0, n);
            }
            if (stream.isBidirectional() && !keepForAnswer(stream)) {
                stream.getOutputStream().close(); // too many wait for the app's answer: this one gets none
            }
            if (!ended.get()) {
                session.streamMessage(stream.getStreamId(), Unpooled.wrappedBuffer(message.toByteArray()),
                        System.nanoTime());
            }
        } catch (IOException e) {
            // reset by the client, or the session or connection went away: the stream's bytes are no message
        } finally {
            streams.remove(stream);
        }
    }

    /** Keeps a read bidirectional stream open for the app's answer, within the session's stream limit. */
    private boolean keepForAnswer(HttpStream stream) {
        synchronized (writable) {
            if (ended.get() || writable.size() >= connection.limits().streamsPerSession()) {
                return false;
            }
            writable.put(stream.getStreamId(), Writable.of(stream));
            return true;
        }
    }

    /** Streams the app may write now: read bidirectional ones awaiting its answer and its own open ones. */
    int streamsWritable() {
        return writable.size();
    }

    /** One datagram's payload; false when dropped (ended, paused or over the message limit). Never blocks. */
    boolean datagram(byte[] payload) {
        if (ended.get() || !reading || payload.length > connection.limits().maxMessage()) {
            return false;
        }
        session.datagram(Unpooled.wrappedBuffer(payload), System.nanoTime());
        return true;
    }

    private void awaitReading() throws IOException {
        if (reading) {
            return;
        }
        synchronized (gate) {
            while (!reading && !ended.get()) {
                try {
                    gate.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted");
                }
            }
        }
    }

    private void end(int code) {
        if (!ended.compareAndSet(false, true)) {
            return;
        }
        synchronized (gate) {
            gate.notifyAll();
        }
        for (HttpStream stream : streams) {
            WebTransportConnection.refuse(stream, WebTransportCodes.WEBTRANSPORT_SESSION_GONE);
        }
        writer.execute(() -> {
            synchronized (writable) {
                for (Writable stream : writable.values()) {
                    stream.stream().resetStream(WebTransportCodes.WEBTRANSPORT_SESSION_GONE);
                }
                writable.clear();
            }
        });
        writer.execute(() -> {
            if (!closing) {
                closing = true;
                try {
                    connect.getOutputStream().close();
                } catch (IOException | RuntimeException ignored) {
                    // the stream or connection is gone already
                }
            }
        });
        connection.ended(this);
        session.closed(code);
    }

    @Override
    public void send(boolean binary, ByteBuf data) {
        byte[] bytes = ByteBufUtil.getBytes(data);
        data.release();
        if (closing || ended.get() || !reserve(bytes.length)) {
            return;
        }
        writer.execute(() -> {
            try {
                if (closing) {
                    return;
                }
                HttpStream stream = connection.transport().openUnidirectional();
                OutputStream out = stream.getOutputStream();
                out.write(QuicVarint.encode(id));
                new SendRearm(out, stream.getStreamId()).write(out, bytes);
                out.close();
            } catch (IOException | RuntimeException e) {
                // the connection is closing: its end reaches the session through the CONNECT stream
            } finally {
                pending.addAndGet(-bytes.length);
            }
        });
    }

    /**
     * Hands the datagram to QUIC now, never to this session's writer: one the client cannot take (larger than
     * its max_datagram_frame_size or one packet allows) is dropped and counted, not queued. Any datagram may
     * be lost on the way, so none waits behind the session's stream writes.
     */
    @Override
    public boolean sendDatagram(ByteBuf data) {
        byte[] frame = DatagramCodec.encode(id, ByteBufUtil.getBytes(data));
        data.release();
        if (closing || ended.get()) {
            return true;
        }
        if (!connection.transport().sendDatagram(frame)) {
            connection.datagramUnsent();
        }
        return true;
    }

    @Override
    public boolean sendStream(long streamId, ByteBuf data, boolean finish) {
        byte[] bytes = ByteBufUtil.getBytes(data);
        data.release();
        if (closing || ended.get() || !reserve(bytes.length)) {
            return true;
        }
        writer.execute(() -> {
            try {
                if (!closing) {
                    writeStream(streamId, bytes, finish);
                }
            } finally {
                pending.addAndGet(-bytes.length);
            }
        });
        return true;
    }

    /**
     * Counts {@code bytes} the app sent as waiting to be written; false, and the session closed with 1008, when
     * they would pass the outbound limit (a slow reader). The writer gives them back once written.
     */
    private boolean reserve(int bytes) {
        if (pending.addAndGet(bytes) > connection.limits().outboundLimit()) {
            pending.addAndGet(-bytes);
            close(POLICY_VIOLATION, "slow consumer");
            return false;
        }
        return true;
    }

    /** Writer thread: the bytes on the stream the app named, opening one of ours for a new name. */
    private void writeStream(long streamId, byte[] bytes, boolean finish) {
        Writable stream = writable.get(streamId);
        try {
            if (stream == null) {
                if (streamId < FIRST_APP_STREAM) {
                    return; // no client stream of ours to answer on (unidirectional, finished, or never read)
                }
                synchronized (writable) {
                    if (ended.get() || writable.size() >= connection.limits().streamsPerSession()) {
                        return; // too many open: the app's new stream is not opened, its bytes dropped
                    }
                    HttpStream opened = connection.transport().openUnidirectional();
                    stream = Writable.of(opened);
                    stream.out().write(QuicVarint.encode(id));
                    writable.put(streamId, stream);
                }
            }
            OutputStream out = stream.out();
            if (bytes.length > 0) { // after an empty write to a Kwik stream, Chromium got none of its later bytes
                stream.writes().write(out, bytes);
            }
            if (finish) {
                writable.remove(streamId);
                out.close();
            }
        } catch (IOException | RuntimeException e) {
            // reset by the client, or the connection is closing: the app's bytes have nowhere to go
            writable.remove(streamId);
        }
    }

    @Override
    public void close(int code, String reason) {
        closeSession(code, reason);
    }

    /** {@link #close}, completed once the capsule is written (or there was nothing to write). */
    CompletableFuture<Void> closeSession(int code, String reason) {
        CompletableFuture<Void> written = new CompletableFuture<>();
        writer.execute(() -> {
            try {
                writeClose(code, reason);
            } finally {
                written.complete(null);
            }
        });
        return written;
    }

    private void writeClose(int code, String reason) {
        if (closing) {
            return;
        }
        closing = true;
        closeCode = code;
        try {
            OutputStream out = connect.getOutputStream();
            out.write(CapsuleCodec.dataFrame(CapsuleCodec.encodeClose(code & 0xFFFF_FFFFL, reason)));
            out.close();
        } catch (IOException | RuntimeException e) {
            // gone already: the reader ends the session
        }
        long waitNanos = connection.limits().closeWait().toNanos();
        Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(waitNanos / 1_000_000, (int) (waitNanos % 1_000_000));
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
            if (!ended.get()) {
                connect.abortReading(WebTransportCodes.H3_NO_ERROR); // the client never ended it: stop waiting
            }
        });
    }

    @Override
    public void reading(boolean on) {
        synchronized (gate) {
            reading = on;
            gate.notifyAll();
        }
    }

    /**
     * A stream the app may write, its one output (Flupke's is taken once per stream) and the guard on that
     * output's writes (SendRearm).
     */
    private record Writable(HttpStream stream, OutputStream out, SendRearm writes) {
        static Writable of(HttpStream stream) {
            OutputStream out = stream.getOutputStream();
            return new Writable(stream, out, new SendRearm(out, stream.getStreamId()));
        }
    }

    /** Runs tasks one at a time, in order, on a virtual thread while there are any. */
    private static final class Writer {
        private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean running = new AtomicBoolean();

        void execute(Runnable task) {
            tasks.add(task);
            if (running.compareAndSet(false, true)) {
                Thread.ofVirtual().start(this::drain);
            }
        }

        private void drain() {
            do {
                Runnable task;
                while ((task = tasks.poll()) != null) {
                    task.run();
                }
                running.set(false);
            } while (!tasks.isEmpty() && running.compareAndSet(false, true));
        }
    }
}
