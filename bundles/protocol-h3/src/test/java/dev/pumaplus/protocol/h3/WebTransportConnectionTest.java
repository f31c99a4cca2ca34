/*
 * Holds WebTransportConnection and WebTransportSession to what a client's bytes make them do: the session
 * decided by the hub, its close code, and each hostile input closing what it must with the right HTTP/3 or
 * WebTransport code. The QUIC connection, the streams and the hub are stand-ins that record what they are
 * told (Kwik's and Flupke's real ones need a QUIC handshake; webtransport_chromium_test.rb runs them).
 */
package dev.pumaplus.protocol.h3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pumaplus.spi.Exchange;
import dev.pumaplus.spi.RequestHead;
import dev.pumaplus.spi.ResponseSink;
import dev.pumaplus.spi.WebSocketHub;
import dev.pumaplus.spi.WebSocketPeer;
import dev.pumaplus.spi.WebSocketSession;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tech.kwik.flupke.HttpStream;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class WebTransportConnectionTest {

    private static final InetSocketAddress LOCAL = new InetSocketAddress("127.0.0.1", 4433);
    private static final InetSocketAddress REMOTE = new InetSocketAddress("127.0.0.1", 50000);

    private final FakeTransport transport = new FakeTransport();
    private final FakeHub hub = new FakeHub();

    private WebTransportConnection connection(int sessions, int maxMessage) {
        return new WebTransportConnection(transport, hub, new WebTransportLimits(sessions, 4, maxMessage, 1 << 20, 4,
                Duration.ofMillis(50), Duration.ofSeconds(5)), LOCAL, REMOTE, new HeldSessions());
    }

    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    /** Waits until the hub held the session and the connection let it in: its datagrams are taken from then. */
    private void awaitHeld(WebTransportConnection wt) throws Exception {
        hub.heldLatch.get(5, TimeUnit.SECONDS);
        while (wt.held() == 0) {
            Thread.sleep(1);
        }
    }

    /** A session the hub held, whose CONNECT stream stays open until {@link #end}; its connect runs on {@code thread}. */
    private record HeldSession(BlockingInput connect, FakeStream stream, Thread thread) {
        /** The client ends the CONNECT stream; returns once the session has ended. */
        void end() throws InterruptedException {
            connect.end();
            thread.join();
        }
    }

    /** Opens session 0 on {@code wt} on a thread of its own and waits until it is held. */
    private HeldSession hold(WebTransportConnection wt) throws Exception {
        BlockingInput connect = new BlockingInput();
        FakeStream stream = new FakeStream(0, true, connect);
        Thread thread = Thread.ofVirtual().start(() -> wt.connect("/wt", List.of(), code -> { }, stream));
        awaitHeld(wt);
        return new HeldSession(connect, stream, thread);
    }

    /** A uni stream's bytes after its type: the session id, then the message. */
    private static byte[] uni(long session, String message) {
        return concat(QuicVarint.encode(session), utf8(message));
    }

    @Test
    void anAcceptedSessionIsHeldAndTheClientsCloseCapsuleCodeReachesTheApp() throws Exception {
        WebTransportConnection wt = connection(4, 1024);
        // A reserved ("grease") frame type 0x21 first, as Chromium sends: skipped, not the stream's end.
        byte[] connect = concat(hex("21" + "03" + "aabbcc"),
                CapsuleCodec.dataFrame(CapsuleCodec.encodeClose(4001, "done")));
        FakeStream stream = new FakeStream(0, true, connect);
        List<Integer> status = new CopyOnWriteArrayList<>();
        wt.connect("/wt?token=1", List.of(Map.entry("host", "example")), status::add, stream);

        assertEquals(List.of(200), status);
        RequestHead head = hub.offered.get(0);
        assertEquals("GET", head.method());
        assertEquals("/wt?token=1", head.target());
        assertEquals("HTTP/3", head.protocol());
        assertEquals(List.of("closed 4001"), hub.session.events);
        assertEquals(0, wt.held(), "the ended session left the connection");
        stream.awaitClosed(); // the server's side of the CONNECT stream is ended too
    }

    @Test
    void aConnectStreamEndedWithoutACapsuleClosesWithZero() {
        WebTransportConnection wt = connection(4, 1024);
        wt.connect("/wt", List.of(), code -> { }, new FakeStream(0, true, new byte[0]));
        assertEquals(List.of("closed 0"), hub.session.events);
    }

    @Test
    void theAppsRefusalIsTheConnectsStatusAndNoSessionIsHeld() {
        hub.answer = 403;
        WebTransportConnection wt = connection(4, 1024);
        List<Integer> status = new ArrayList<>();
        wt.connect("/wt", List.of(), status::add, new FakeStream(0, true, new byte[0]));
        assertEquals(List.of(403), status);
        assertEquals(null, hub.session);
    }

    @Test
    void anAppAnsweringTheUpgradeWithAPageInsteadOfAnAcceptIsAnswered502() {
        hub.answer = 200;
        WebTransportConnection wt = connection(4, 1024);
        List<Integer> status = new ArrayList<>();
        wt.connect("/wt", List.of(), status::add, new FakeStream(0, true, new byte[0]));
        assertEquals(List.of(502), status, "a 2xx would tell the client it has a session");
        assertEquals(null, hub.session);
    }

    @Test
    void anOversizedCapsuleResetsTheConnectStreamWithH3MessageErrorAndTheAppSeesAnAbnormalClose() {
        WebTransportConnection wt = connection(4, 1024);
        // CLOSE_WEBTRANSPORT_SESSION claiming 5000 bytes: more than any capsule this server takes (1028).
        byte[] capsule = hex("6843" + "5388");
        FakeStream stream = new FakeStream(0, true, concat(hex("00" + "04"), capsule));
        wt.connect("/wt", List.of(), code -> { }, stream);
        assertEquals(List.of(WebTransportCodes.H3_MESSAGE_ERROR), stream.resets);
        assertEquals(List.of(WebTransportCodes.H3_MESSAGE_ERROR), stream.aborts);
        assertEquals(List.of("closed 1006"), hub.session.events);
    }

    @Test
    void aConnectBeyondTheSessionLimitIsAnswered429() throws Exception {
        WebTransportConnection wt = connection(1, 1024);
        BlockingInput first = new BlockingInput();
        Thread held = Thread.ofVirtual().start(() -> wt.connect("/wt", List.of(), code -> { },
                new FakeStream(0, true, first)));
        hub.heldLatch.get(5, TimeUnit.SECONDS);
        List<Integer> status = new ArrayList<>();
        wt.connect("/wt", List.of(), status::add, new FakeStream(4, true, new byte[0]));
        assertEquals(List.of(429), status);
        assertEquals(List.of(WebSocketHub.Refusal.SESSION), hub.refusals, "the hub counts the refusal");
        assertEquals(1, hub.offered.size(), "the app never saw the second");
        first.end();
        held.join();
    }

    @Test
    void aStreamAndADatagramOfAHeldSessionAreItsMessagesAndTheAppsMessageLeavesOnAUniStream() throws Exception {
        WebTransportConnection wt = connection(4, 1024);
        HeldSession held = hold(wt);
        wt.unidirectionalStream(new FakeStream(2, false, uni(0, "over a stream")));
        FakeStream bidi = new FakeStream(4, true,
                concat(QuicVarint.encode(WebTransportCodes.FRAME_TYPE_WEBTRANSPORT_STREAM), uni(0, "bidi")));
        wt.bidirectionalStream(bidi);
        wt.datagram(DatagramCodec.encode(0, utf8("a datagram")));
        assertEquals(List.of("stream 2 over a stream", "stream 4 bidi", "datagram a datagram"), hub.session.events,
                "each message reports its kind, a stream its id");
        assertFalse(bidi.outputClosed, "the bidi stream's server side waits for the app's answer");

        hub.peer.send(false, Unpooled.wrappedBuffer(utf8("answer")));
        FakeStream out = transport.opened.poll(5, TimeUnit.SECONDS);
        out.awaitClosed();
        assertArrayEquals(uni(0, "answer"), out.written.toByteArray());
        held.end();
    }

    @Test
    void theAppAnswersOnTheClientsBidiStreamSendsADatagramAndWritesAndFinishesAStreamItNamed() throws Exception {
        WebTransportConnection wt = connection(4, 1024);
        HeldSession held = hold(wt);
        FakeStream bidi = new FakeStream(4, true,
                concat(QuicVarint.encode(WebTransportCodes.FRAME_TYPE_WEBTRANSPORT_STREAM), uni(0, "question")));
        wt.bidirectionalStream(bidi);
        assertTrue(hub.peer.sendStream(4, Unpooled.wrappedBuffer(utf8("ans")), false));
        hub.peer.sendStream(4, Unpooled.wrappedBuffer(utf8("wer")), true);
        bidi.awaitClosed();
        assertEquals("answer", new String(bidi.written.toByteArray(), StandardCharsets.UTF_8),
                "the answer on the client's own stream, then its FIN");

        assertTrue(hub.peer.sendDatagram(Unpooled.wrappedBuffer(utf8("pong"))));
        assertArrayEquals(DatagramCodec.encode(0, utf8("pong")), transport.datagrams.poll(5, TimeUnit.SECONDS),
                "the datagram carries the session's quarter stream id");

        long name = WebSocketPeer.FIRST_APP_STREAM + 7;
        hub.peer.sendStream(name, Unpooled.EMPTY_BUFFER, false); // open_stream
        hub.peer.sendStream(name, Unpooled.wrappedBuffer(utf8("one,")), false);
        hub.peer.sendStream(name, Unpooled.wrappedBuffer(utf8("two")), false);
        hub.peer.sendStream(name, Unpooled.EMPTY_BUFFER, true); // finish_stream
        FakeStream ours = transport.opened.poll(5, TimeUnit.SECONDS);
        ours.awaitClosed();
        assertArrayEquals(uni(0, "one,two"), ours.written.toByteArray(), "one new stream for the name, then FIN");
        assertEquals(0, ours.emptyWrites.get(),
                "no empty write: on a Kwik stream the bytes after one never reached Chromium");
        assertNull(transport.opened.poll(100, TimeUnit.MILLISECONDS), "the second write reused the stream");
        held.end();
    }

    @Test
    void anAppsDatagramLargerThanThePeerTakesIsDroppedAndCountedNotQueued() throws Exception {
        transport.maxDatagram = 100;
        WebTransportConnection wt = connection(4, 1024);
        HeldSession held = hold(wt);
        assertTrue(hub.peer.sendDatagram(Unpooled.wrappedBuffer(new byte[100])), "the app is not told: any may be lost");
        assertTrue(transport.datagrams.isEmpty(), "dropped when the app sent it, not queued for later");
        assertEquals(List.of(WebSocketHub.Refusal.DATAGRAM_UNSENT), hub.refusals, "the hub counts it");
        hub.peer.sendDatagram(Unpooled.wrappedBuffer(new byte[99])); // with the 1-byte quarter stream id: 100
        assertEquals(100, transport.datagrams.poll(5, TimeUnit.SECONDS).length, "one that fits still goes");
        assertEquals(1, hub.refusals.size());
        held.end();
    }

    @Test
    void aBidiStreamWaitingForTheAppsAnswerIsResetWhenTheSessionEnds() throws Exception {
        WebTransportConnection wt = connection(4, 1024);
        HeldSession held = hold(wt);
        FakeStream bidi = new FakeStream(4, true,
                concat(QuicVarint.encode(WebTransportCodes.FRAME_TYPE_WEBTRANSPORT_STREAM), uni(0, "unanswered")));
        wt.bidirectionalStream(bidi);
        held.end();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (bidi.resets.isEmpty() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(List.of(WebTransportCodes.WEBTRANSPORT_SESSION_GONE), bidi.resets);
    }

    @Test
    void theAppsCloseSendsTheCapsuleAndFinThenTheAppSeesItsOwnCode() throws Exception {
        WebTransportConnection wt = connection(4, 1024);
        HeldSession held = hold(wt);
        FakeStream stream = held.stream();
        hub.peer.close(4002, "bye");
        stream.awaitClosed();
        assertArrayEquals(CapsuleCodec.dataFrame(CapsuleCodec.encodeClose(4002, "bye")), stream.written.toByteArray());
        held.end(); // the client answers with its FIN
        assertEquals(List.of("closed 4002"), hub.session.events);
    }

    @Test
    void aStreamLongerThanTheMessageLimitIsStoppedAndClosesItsSessionWith1009() throws Exception {
        WebTransportConnection wt = connection(4, 8);
        HeldSession held = hold(wt);
        FakeStream stream = held.stream();
        FakeStream big = new FakeStream(2, false, uni(0, "more than eight bytes"));
        wt.unidirectionalStream(big);
        assertEquals(List.of(WebTransportCodes.H3_EXCESSIVE_LOAD), big.aborts);
        stream.awaitClosed();
        assertArrayEquals(CapsuleCodec.dataFrame(CapsuleCodec.encodeClose(1009, "message too big")),
                stream.written.toByteArray());
        held.end();
        assertEquals(List.of("closed 1009"), hub.session.events);
    }

    @Test
    void aStreamBeyondTheSessionsStreamLimitIsRefusedWithH3ExcessiveLoad() throws Exception {
        WebTransportConnection wt = connection(4, 1024); // 4 streams per session
        HeldSession held = hold(wt);
        List<BlockingInput> open = new ArrayList<>();
        List<Thread> readers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            BlockingInput in = new BlockingInput();
            for (byte b : QuicVarint.encode(0)) {
                in.feed(b);
            }
            open.add(in);
            long id = 2 + 4L * i;
            readers.add(Thread.ofVirtual().start(() -> wt.unidirectionalStream(new FakeStream(id, false, in))));
        }
        while (wt.streamsReading() < 4) {
            Thread.sleep(1);
        }
        FakeStream fifth = new FakeStream(18, false, uni(0, "one too many"));
        wt.unidirectionalStream(fifth);
        assertEquals(List.of(WebTransportCodes.H3_EXCESSIVE_LOAD), fifth.aborts);
        assertEquals(List.of(WebSocketHub.Refusal.STREAM), hub.refusals, "the hub counts the refused stream");
        for (BlockingInput in : open) {
            in.end();
        }
        for (Thread reader : readers) {
            reader.join();
        }
        assertEquals(4, hub.session.events.size(), "the four were read to their end: " + hub.session.events);
        held.end();
    }

    @Test
    void aSessionWhoseEventsWaitDropsItsDatagramsInsteadOfQueueingThem() throws Exception {
        WebTransportConnection wt = connection(4, 1024);
        HeldSession held = hold(wt);
        hub.peer.reading(false); // the hub: too many of its events wait
        wt.datagram(DatagramCodec.encode(0, utf8("dropped")));
        hub.peer.reading(true);
        wt.datagram(DatagramCodec.encode(0, utf8("taken")));
        assertEquals(1, wt.datagramsDropped());
        assertEquals(List.of(WebSocketHub.Refusal.DATAGRAM), hub.refusals, "the hub counts the dropped datagram");
        assertEquals(List.of("datagram taken"), hub.session.events);
        held.end();
    }

    @Test
    void anAppSendingMoreThanTheOutboundLimitClosesItsSessionWith1008() throws Exception {
        WebTransportConnection wt = new WebTransportConnection(transport, hub, new WebTransportLimits(4, 4, 1024,
                16, 4, Duration.ofMillis(50), Duration.ofSeconds(5)), LOCAL, REMOTE, new HeldSessions());
        transport.block = new CompletableFuture<>(); // nothing the app sends gets written meanwhile
        HeldSession held = hold(wt);
        FakeStream stream = held.stream();
        hub.peer.send(true, Unpooled.wrappedBuffer(new byte[10]));
        hub.peer.send(true, Unpooled.wrappedBuffer(new byte[10])); // 20 > 16 bytes pending
        transport.block.complete(null);
        stream.awaitClosed();
        assertArrayEquals(CapsuleCodec.dataFrame(CapsuleCodec.encodeClose(1008, "slow consumer")),
                stream.written.toByteArray());
        held.end();
        assertEquals(List.of("closed 1008"), hub.session.events);
    }

    @Test
    void aGracefulStopClosesEveryHeldSessionWith1001BeforeItsConnectionGoes() throws Exception {
        HeldSessions listener = new HeldSessions();
        WebTransportConnection wt = new WebTransportConnection(transport, hub, new WebTransportLimits(4, 4, 1024,
                1 << 20, 4, Duration.ofMillis(50), Duration.ofSeconds(5)), LOCAL, REMOTE, listener);
        HeldSession held = hold(wt);
        FakeStream stream = held.stream();
        listener.closeAll(5000);
        assertArrayEquals(CapsuleCodec.dataFrame(CapsuleCodec.encodeClose(1001, "server going away")),
                stream.written.toByteArray(), "written before closeAll returns");
        held.end(); // the connection closes under it
        assertEquals(List.of("closed 1001"), hub.session.events);
    }

    @Test
    void aStreamNamingAnUnknownSessionIsRejectedAsABufferedStream() {
        WebTransportConnection wt = connection(4, 1024);
        FakeStream uni = new FakeStream(2, false, uni(8, "nobody"));
        FakeStream bidi = new FakeStream(4, true,
                concat(QuicVarint.encode(WebTransportCodes.FRAME_TYPE_WEBTRANSPORT_STREAM), uni(12, "nobody")));
        wt.unidirectionalStream(uni);
        wt.bidirectionalStream(bidi);
        assertEquals(List.of(WebTransportCodes.WEBTRANSPORT_BUFFERED_STREAM_REJECTED), uni.aborts);
        assertEquals(List.of(WebTransportCodes.WEBTRANSPORT_BUFFERED_STREAM_REJECTED), bidi.aborts);
        assertEquals(List.of(WebTransportCodes.WEBTRANSPORT_BUFFERED_STREAM_REJECTED), bidi.resets);
        assertEquals(List.of(), transport.closes, "the connection carries on");
    }

    @Test
    void aStreamWaitingForItsSessionIsServedOnceTheAppAccepts() throws Exception {
        WebTransportConnection wt = new WebTransportConnection(transport, hub, new WebTransportLimits(4, 4, 1024,
                1 << 20, 4, Duration.ofSeconds(5), Duration.ofSeconds(5)), LOCAL, REMOTE, new HeldSessions());
        hub.delay = new CompletableFuture<>();
        BlockingInput connect = new BlockingInput();
        Thread held = Thread.ofVirtual().start(() -> wt.connect("/wt", List.of(), code -> { },
                new FakeStream(0, true, connect)));
        Thread early = Thread.ofVirtual().start(() -> wt.unidirectionalStream(new FakeStream(2, false, uni(0, "early"))));
        Thread.sleep(50); // the stream now waits for session 0
        hub.delay.complete(null);
        early.join();
        assertEquals(List.of("stream 2 early"), hub.session.events);
        connect.end();
        held.join();
    }

    @Test
    void aSessionIdThatIsNotAConnectStreamClosesTheConnectionWithH3IdError() {
        WebTransportConnection wt = connection(4, 1024);
        FakeStream uni = new FakeStream(2, false, uni(2, "x")); // 2: a server-initiated bidirectional stream
        wt.unidirectionalStream(uni);
        assertEquals(List.of(WebTransportCodes.H3_ID_ERROR), transport.closes);
        assertEquals(List.of(WebTransportCodes.H3_ID_ERROR), uni.aborts);
    }

    @Test
    void aDatagramBeforeAnySessionIsDroppedAndCountedNotQueued() {
        WebTransportConnection wt = connection(4, 1024);
        wt.datagram(DatagramCodec.encode(0, utf8("too early")));
        assertEquals(1, wt.datagramsDropped());
        assertEquals(List.of(), hub.offered);
        assertEquals(List.of(), transport.closes);
    }

    @Test
    void aDatagramWithoutAWholeQuarterStreamIdClosesTheConnectionWithH3DatagramError() {
        WebTransportConnection wt = connection(4, 1024);
        wt.datagram(hex("80"));
        assertEquals(List.of(WebTransportCodes.H3_DATAGRAM_ERROR), transport.closes);
    }

    // --- stand-ins ---

    /** An input that blocks until {@link #end}. */
    static final class BlockingInput extends InputStream {
        private final BlockingQueue<Integer> bytes = new LinkedBlockingQueue<>();

        void end() {
            bytes.add(-1);
        }

        void feed(byte b) {
            bytes.add(b & 0xFF);
        }

        @Override
        public int read() throws IOException {
            try {
                int b = bytes.take();
                if (b < 0) {
                    bytes.add(-1);
                }
                return b;
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
        }
    }

    static final class FakeStream implements HttpStream {
        final long id;
        final boolean bidirectional;
        final InputStream in;
        final ByteArrayOutputStream written = new ByteArrayOutputStream();
        final List<Long> aborts = new CopyOnWriteArrayList<>();
        final List<Long> resets = new CopyOnWriteArrayList<>();
        final CompletableFuture<Void> closed = new CompletableFuture<>();
        volatile boolean outputClosed;
        final AtomicInteger emptyWrites = new AtomicInteger();

        FakeStream(long id, boolean bidirectional, byte[] input) {
            this(id, bidirectional, new java.io.ByteArrayInputStream(input));
        }

        FakeStream(long id, boolean bidirectional, InputStream input) {
            this.id = id;
            this.bidirectional = bidirectional;
            this.in = input;
        }

        void awaitClosed() throws Exception {
            closed.get(5, TimeUnit.SECONDS);
        }

        @Override
        public OutputStream getOutputStream() {
            return new OutputStream() {
                @Override
                public void write(int b) {
                    written.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) {
                    if (len == 0) {
                        emptyWrites.incrementAndGet(); // on a Kwik stream, the bytes after one never reached Chromium
                    }
                    written.write(b, off, len);
                }

                @Override
                public void close() {
                    outputClosed = true;
                    closed.complete(null);
                }
            };
        }

        @Override
        public InputStream getInputStream() {
            return in;
        }

        @Override
        public long getStreamId() {
            return id;
        }

        @Override
        public boolean isBidirectional() {
            return bidirectional;
        }

        @Override
        public void abortReading(long errorCode) {
            aborts.add(errorCode);
        }

        @Override
        public void resetStream(long errorCode) {
            resets.add(errorCode);
        }
    }

    static final class FakeTransport implements WebTransportConnection.Transport {
        final List<Long> closes = new CopyOnWriteArrayList<>();
        final BlockingQueue<FakeStream> opened = new LinkedBlockingQueue<>();
        final BlockingQueue<byte[]> datagrams = new LinkedBlockingQueue<>();
        /** When set, opening a stream waits for it: the app's messages pile up unwritten. */
        volatile CompletableFuture<Void> block;
        private long next = 3;

        @Override
        public synchronized HttpStream openUnidirectional() {
            if (block != null) {
                block.join();
            }
            FakeStream stream = new FakeStream(next, false, new byte[0]);
            next += 4;
            opened.add(stream);
            return stream;
        }

        /** A DATAGRAM frame's content at most, bytes: the peer's max_datagram_frame_size as Kwik applies it. */
        volatile int maxDatagram = Integer.MAX_VALUE;

        @Override
        public boolean sendDatagram(byte[] frame) {
            if (frame.length > maxDatagram) {
                return false;
            }
            datagrams.add(frame);
            return true;
        }

        @Override
        public void close(long errorCode, String reason) {
            closes.add(errorCode);
        }
    }

    /** The hub: answers each upgrade with {@link #answer} (101 accepts), holds with a recording session. */
    static final class FakeHub implements WebSocketHub {
        final List<Refusal> refusals = new CopyOnWriteArrayList<>();
        final List<RequestHead> offered = new CopyOnWriteArrayList<>();
        final CompletableFuture<Void> heldLatch = new CompletableFuture<>();
        volatile int answer = 101;
        volatile CompletableFuture<Void> delay;
        volatile RecordingSession session;
        volatile WebSocketPeer peer;

        @Override
        public Exchange offer(Object connection, RequestHead head, ResponseSink sink) {
            offered.add(head);
            Runnable respond = () -> sink.head(answer,
                    answer == 101 ? List.of(Map.entry(ACCEPT_HEADER, "sticky")) : List.of(), true);
            if (delay != null) {
                delay.thenRun(respond);
            } else {
                respond.run();
            }
            return new Exchange() {
                @Override
                public void resumeResponse() {
                }

                @Override
                public void cancel() {
                }

                @Override
                public void responseSent(long flushedNanos) {
                }
            };
        }

        @Override
        public void refused(Refusal refusal) {
            refusals.add(refusal);
        }

        @Override
        public WebSocketSession hold(Exchange upgrade, boolean sticky, WebSocketPeer peer) {
            this.peer = peer;
            session = new RecordingSession();
            heldLatch.complete(null);
            return session;
        }
    }

    static final class RecordingSession implements WebSocketSession {
        final List<String> events = new CopyOnWriteArrayList<>();

        @Override
        public long id() {
            return 1;
        }

        @Override
        public void message(boolean binary, ByteBuf data, long arrivedNanos) {
            events.add("message " + new String(ByteBufUtil.getBytes(data), StandardCharsets.UTF_8));
            data.release();
        }

        @Override
        public void streamMessage(long streamId, ByteBuf data, long arrivedNanos) {
            events.add("stream " + streamId + " " + new String(ByteBufUtil.getBytes(data), StandardCharsets.UTF_8));
            data.release();
        }

        @Override
        public void datagram(ByteBuf data, long arrivedNanos) {
            events.add("datagram " + new String(ByteBufUtil.getBytes(data), StandardCharsets.UTF_8));
            data.release();
        }

        @Override
        public void closed(int code) {
            events.add("closed " + code);
        }
    }
}
