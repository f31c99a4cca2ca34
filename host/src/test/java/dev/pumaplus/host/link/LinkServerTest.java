/*
 * Claims about the worker link over a real unix socket (io_uring, epoll and NIO): the HELLO/WELCOME
 * handshake, the dispatch of a request to a dialled-in worker and of its response back to the protocol's
 * sink, response backpressure (a sink that pauses stops the link from being read, so the worker blocks in
 * its write), and what happens when a worker dies or breaks the protocol.
 */
package dev.pumaplus.host.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pumaplus.host.queue.Dispatcher;
import dev.pumaplus.host.queue.DispatcherTest;
import dev.pumaplus.host.queue.EmbeddedWorker;
import dev.pumaplus.host.queue.QueueFixture;
import dev.pumaplus.host.queue.RecordingSink;
import dev.pumaplus.spi.Exchange;
import dev.pumaplus.spi.ResponseSink;
import dev.pumaplus.wire.Frame;
import dev.pumaplus.wire.FrameType;
import dev.pumaplus.wire.Goaway;
import dev.pumaplus.wire.Hello;
import dev.pumaplus.wire.PairList;
import dev.pumaplus.wire.Protocol;
import dev.pumaplus.wire.ResponseFile;
import dev.pumaplus.wire.ResponseHead;
import dev.pumaplus.wire.Welcome;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@Timeout(20)
class LinkServerTest {

    private HostTransport transport;
    private LinkServer server;
    private QueueFixture queue;
    private Dispatcher dispatcher;
    private Path dir;
    private final CompletableFuture<String> config = new CompletableFuture<>();

    private Path start(HostTransport.Kind kind) throws Exception {
        Assumptions.assumeTrue(kind.unavailability() == null, () -> kind.label + " not available: " + kind.unavailability());
        dir = Files.createTempDirectory("puma-plus-test-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        transport = HostTransport.create(kind, 2);
        queue = new QueueFixture();
        dispatcher = queue.dispatcher;
        server = new LinkServer(transport, dispatcher, queue.reporting,
                queue.webSockets, (link, hello, json) -> config.complete(json));
        Path socket = dir.resolve("link.sock");
        server.bind(socket);
        return socket;
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
        if (transport != null) {
            transport.shutdown();
        }
        if (dir != null) {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(5);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(HostTransport.Kind.class)
    void helloIsAnsweredWithWelcomeAndTheWorkerBecomesALiveSlot(HostTransport.Kind kind) throws Exception {
        Path socket = start(kind);
        try (LinkClient worker = LinkClient.worker(socket, 4242, 0, 0)) {
            Frame welcome = worker.read();
            assertEquals(FrameType.WELCOME, welcome.type());
            assertEquals(Protocol.VERSION, Welcome.decode(welcome.payload()).version());
            assertTrue(Welcome.decode(welcome.payload()).linkId() > 0);
            welcome.release();
            await(() -> dispatcher.snapshot().live() == 1, "the slot");
        }
        await(() -> dispatcher.snapshot().live() == 0, "the slot to go away with its link");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(HostTransport.Kind.class)
    void versionOnePeerGetsGoawayTwoAndTheLinkIsClosed(HostTransport.Kind kind) throws Exception {
        Path socket = start(kind);
        try (LinkClient peer = new LinkClient(socket)) {
            // version 1 has no timing fields: the host cannot speak it any more
            peer.write(new Hello(1, 0, 1, 1, 0, 0).toFrame(ByteBufAllocator.DEFAULT));
            Frame goaway = peer.read();
            assertEquals(FrameType.GOAWAY, goaway.type());
            assertEquals(Goaway.CODE_UNSUPPORTED_VERSION, Goaway.decode(goaway.payload()).code());
            goaway.release();
            assertNull(peer.read(), "closed after GOAWAY(2)");
        }
        assertEquals(0, dispatcher.snapshot().live());
    }

    @Test
    void peerOfferingALaterVersionIsWelcomedWithTheHostsVersion() throws Exception {
        Path socket = start(HostTransport.Kind.NIO);
        try (LinkClient peer = new LinkClient(socket)) {
            peer.write(new Hello(Protocol.VERSION + 1, Hello.ROLE_WORKER, 1, 1, 0, 0).toFrame(ByteBufAllocator.DEFAULT));
            Frame welcome = peer.read();
            assertEquals(FrameType.WELCOME, welcome.type());
            assertEquals(Protocol.VERSION, Welcome.decode(welcome.payload()).version());
            welcome.release();
        }
    }

    @Test
    void aVersionFivePeerIsWelcomedWithFive() throws Exception {
        Path socket = start(HostTransport.Kind.NIO);
        try (LinkClient peer = new LinkClient(socket)) {
            peer.write(new Hello(Protocol.MIN_VERSION, Hello.ROLE_WORKER, 1, 1, 0, 0).toFrame(ByteBufAllocator.DEFAULT));
            Frame welcome = peer.read();
            assertEquals(FrameType.WELCOME, welcome.type());
            assertEquals(5, Welcome.decode(welcome.payload()).version());
            welcome.release();
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(HostTransport.Kind.class)
    void frameBeforeHelloIsAProtocolErrorAnsweredWithGoawayOne(HostTransport.Kind kind) throws Exception {
        Path socket = start(kind);
        try (LinkClient peer = new LinkClient(socket)) {
            peer.write(Frame.empty(FrameType.RESPONSE_BODY, true));
            Frame goaway = peer.read();
            assertEquals(Goaway.CODE_PROTOCOL_ERROR, Goaway.decode(goaway.payload()).code());
            goaway.release();
            assertNull(peer.read());
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(HostTransport.Kind.class)
    void dispatchedRequestReachesTheWorkerAndItsResponseReachesTheSink(HostTransport.Kind kind) throws Exception {
        Path socket = start(kind);
        try (LinkClient worker = LinkClient.worker(socket, 4242, 0, 0)) {
            worker.read().release();
            await(() -> dispatcher.snapshot().live() == 1, "the slot");
            RecordingSink sink = new RecordingSink();
            queue.admission.submit(new Object(), DispatcherTest.get("/hello?x=1"),
                    Unpooled.copiedBuffer("name=alpha1", StandardCharsets.US_ASCII), null, sink);
            Frame request = worker.read();
            assertEquals(FrameType.REQUEST, request.type());
            assertEquals("/hello", EmbeddedWorker.env(List.of(request), "PATH_INFO"));
            assertEquals("x=1", EmbeddedWorker.env(List.of(request), "QUERY_STRING"));
            request.release();
            Frame body = worker.read();
            assertEquals(FrameType.BODY, body.type());
            assertTrue(body.endStream());
            assertEquals("name=alpha1", body.payload().toString(StandardCharsets.US_ASCII));
            body.release();
            worker.write(new ResponseHead(201, 0, 0, 0, List.of(Map.entry("set-cookie", "a=1"), Map.entry("set-cookie", "b=2")))
                    .toFrame(ByteBufAllocator.DEFAULT, false));
            worker.write(Frame.of(FrameType.RESPONSE_BODY, false, Unpooled.copiedBuffer("cre", StandardCharsets.US_ASCII)));
            worker.write(Frame.of(FrameType.RESPONSE_BODY, true, Unpooled.copiedBuffer("ated", StandardCharsets.US_ASCII)));
            assertEquals("end", sink.done.get(5, TimeUnit.SECONDS));
            assertEquals(201, sink.status);
            assertTrue(sink.events.get(0).contains("set-cookie=a=1, set-cookie=b=2"), sink.events.get(0));
            assertEquals("created", sink.bodyText());
            await(() -> dispatcher.snapshot().busy() == 0 && dispatcher.snapshot().completed() == 1, "the link to be idle");
        }
    }

    @Test
    void fileBodyReachesASinkWithoutFileSupportInPiecesOfAQuarterMebibyteHonouringItsPause() throws Exception {
        Path socket = start(HostTransport.Kind.NIO);
        Path file = Files.createTempFile("puma-plus-file-body", ".bin");
        byte[] content = new byte[(5 << 20) / 2]; // 2.5 MiB: ten pieces
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) ('a' + i % 26);
        }
        Files.write(file, content);
        try (LinkClient worker = LinkClient.worker(socket, 4242, 0, 0)) {
            worker.read().release();
            await(() -> dispatcher.snapshot().live() == 1, "the slot");
            RecordingSink sink = new RecordingSink();
            sink.acceptMore = false; // pause after the first piece
            Exchange ex = queue.admission.submit(new Object(), DispatcherTest.get("/file"), Unpooled.EMPTY_BUFFER, null, sink);
            worker.read().release(); // REQUEST
            worker.write(new ResponseHead(200, 0, 0, 0, List.of(Map.entry("content-length", "" + content.length)))
                    .toFrame(ByteBufAllocator.DEFAULT, false));
            worker.write(new ResponseFile(0, content.length, file.toString()).toFrame(ByteBufAllocator.DEFAULT, true));
            await(() -> sink.bodies == 1, "the first piece");
            // The file is fed on the link's loop, and only a resume feeds more: once a task queued there
            // after the first piece has run, whatever the pause let through has arrived.
            QueueFixture.awaitLinkLoop(ex);
            assertEquals(1, sink.bodies, "no more pieces while the sink is paused");
            sink.acceptMore = true;
            ex.resumeResponse();
            assertEquals("end", sink.done.get(5, TimeUnit.SECONDS));
            assertEquals(10, sink.bodies, "ten pieces of ResponseSpool.PIECE_BYTES (256 KiB)");
            assertEquals(new String(content, StandardCharsets.ISO_8859_1), sink.bodyText());
            await(() -> dispatcher.snapshot().busy() == 0 && dispatcher.snapshot().completed() == 1, "the link to be idle");
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void framesAfterAPausedFileWaitForTheFileAndStayWithItsResponse() throws Exception {
        Path socket = start(HostTransport.Kind.NIO);
        Path file = Files.createTempFile("puma-plus-file-then-body", ".bin");
        byte[] content = new byte[(3 << 20) / 2]; // 1.5 MiB: two pieces, paused after the first
        java.util.Arrays.fill(content, (byte) 'f');
        Files.write(file, content);
        try (LinkClient worker = LinkClient.worker(socket, 4242, 0, 0)) {
            worker.read().release();
            await(() -> dispatcher.snapshot().live() == 1, "the slot");
            RecordingSink first = new RecordingSink();
            first.acceptMore = false;
            Exchange ex = queue.admission.submit(new Object(), DispatcherTest.get("/file-then-tail"),
                    Unpooled.EMPTY_BUFFER, null, first);
            RecordingSink second = new RecordingSink();
            queue.admission.submit(new Object(), DispatcherTest.get("/next"), Unpooled.EMPTY_BUFFER, null, second);
            worker.read().release(); // the first REQUEST
            // One write: the decoder hands the tail over right behind the file, while the file is paused.
            worker.writeAll(new ResponseHead(200, 0, 0, 0, List.of()).toFrame(ByteBufAllocator.DEFAULT, false),
                    new ResponseFile(0, content.length, file.toString()).toFrame(ByteBufAllocator.DEFAULT, false),
                    Frame.of(FrameType.RESPONSE_BODY, true, Unpooled.copiedBuffer("tail", StandardCharsets.US_ASCII)));
            await(() -> first.bodies == 1, "the file's first piece");
            QueueFixture.awaitLinkLoop(ex);
            assertEquals(1, first.bodies, "the tail waits behind the paused file");
            first.acceptMore = true;
            ex.resumeResponse();
            assertEquals("end", first.done.get(5, TimeUnit.SECONDS));
            assertEquals(new String(content, StandardCharsets.ISO_8859_1) + "tail", first.bodyText());
            worker.read().release(); // the second REQUEST: only now, after the first response ended
            assertEquals(List.of(), second.events, "nothing of the first response reached the next one");
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** A sink that offers hijacking: records the call, splices nothing, and lets the app's WELCOME go. */
    static final class HijackingSink extends RecordingSink {
        final CompletableFuture<io.netty.channel.Channel> app = new CompletableFuture<>();

        @Override
        public boolean hijack(int status, List<Map.Entry<String, String>> headers, io.netty.channel.Channel channel,
                              Runnable welcome) {
            events.add("hijack " + status + " " + headers);
            welcome.run();
            app.complete(channel);
            return true;
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(HostTransport.Kind.class)
    void fullHijackAnnouncedBeforeTheHijackConnectionIsHandedToTheSinkAndItsClosingHeadStaysInTheHost(
            HostTransport.Kind kind) throws Exception {
        Path socket = start(kind);
        try (FullHijack hijacked = fullHijack(socket)) {
            io.netty.channel.Channel app = hijacked.sink().app.get(5, TimeUnit.SECONDS);
            assertEquals(0, app.pipeline().names().stream().filter(n -> !n.startsWith("DefaultChannelPipeline")).count(),
                    "the frame handlers are gone: raw bytes from here on");
            hijacked.worker().write(new ResponseHead(101, 0, 0, 0, List.of()).toFrame(ByteBufAllocator.DEFAULT, true));
            await(() -> dispatcher.snapshot().busy() == 0, "the slot to be free after the closing head");
            assertEquals(List.of("hijack 0 []"), hijacked.sink().events, "no head reaches the client");
        }
    }

    /**
     * A worker link on {@code socket} gets a request, announces a full hijack and dials hijack.sock for it;
     * returns once the host answered WELCOME there.
     */
    private FullHijack fullHijack(Path socket) throws Exception {
        LinkClient worker = LinkClient.worker(socket, 4242, 0, 0);
        worker.read().release();
        await(() -> dispatcher.snapshot().live() == 1, "the slot");
        HijackingSink sink = new HijackingSink();
        Exchange ex = queue.admission.submit(new Object(), DispatcherTest.get("/ws"),
                Unpooled.EMPTY_BUFFER, null, sink);
        worker.read().release(); // REQUEST
        worker.write(Frame.empty(FrameType.HIJACK, false));
        LinkClient hijack = new LinkClient(socket.resolveSibling(LinkServer.HIJACK_SOCKET));
        hijack.write(new Hello(Protocol.VERSION, Hello.ROLE_HIJACK, 4242, 1, 0, 0, QueueFixture.requestId(ex))
                .toFrame(ByteBufAllocator.DEFAULT));
        Frame welcome = hijack.read();
        assertEquals(FrameType.WELCOME, welcome.type());
        welcome.release();
        return new FullHijack(worker, hijack, sink);
    }

    /** A worker link and its hijack connection, past WELCOME; closes both. */
    private record FullHijack(LinkClient worker, LinkClient hijack, HijackingSink sink) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            try (worker) {
                hijack.close();
            }
        }
    }

    /**
     * An app that calls {@code close_write} on its hijacked IO may still read: the host must see a FIN there
     * as a half-close, which Netty's io_uring unix channels do not (so hijack.sock runs on epoll under an
     * io_uring host) and its NIO ones cannot (half-closure is not among their options).
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = HostTransport.Kind.class, names = {"IO_URING", "EPOLL"})
    void theAppsHalfCloseOnItsHijackConnectionLeavesTheConnectionOpenForTheClientsBytes(HostTransport.Kind kind)
            throws Exception {
        Path socket = start(kind);
        try (FullHijack hijacked = fullHijack(socket)) {
            LinkClient hijack = hijacked.hijack();
            io.netty.channel.Channel app = hijacked.sink().app.get(5, TimeUnit.SECONDS);
            CompletableFuture<Object> shutdown = new CompletableFuture<>();
            app.eventLoop().submit(() -> {
                app.pipeline().addLast(new io.netty.channel.ChannelInboundHandlerAdapter() {
                    @Override
                    public void userEventTriggered(io.netty.channel.ChannelHandlerContext ctx, Object evt) {
                        if (evt instanceof io.netty.channel.socket.ChannelInputShutdownEvent) {
                            shutdown.complete(evt);
                        }
                    }
                });
                app.config().setOption(io.netty.channel.ChannelOption.ALLOW_HALF_CLOSURE, true); // as protocol-h1 does
                app.config().setAutoRead(true);
            }).sync();
            hijack.closeOutput();
            shutdown.get(5, TimeUnit.SECONDS);
            assertTrue(app.isActive(), "still open after the app's FIN: the client's bytes can reach it");
            app.writeAndFlush(Unpooled.copiedBuffer("late", StandardCharsets.US_ASCII)).sync();
            assertEquals("late", hijack.readRaw(4), "bytes still reach the app after its close_write");
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(HostTransport.Kind.class)
    void aRoleOnTheOtherSocketThanItsOwnIsAProtocolError(HostTransport.Kind kind) throws Exception {
        Path socket = start(kind);
        try (LinkClient hijackOnLink = new LinkClient(socket);
             LinkClient workerOnHijack = new LinkClient(socket.resolveSibling(LinkServer.HIJACK_SOCKET))) {
            hijackOnLink.write(new Hello(Protocol.VERSION, Hello.ROLE_HIJACK, 4242, 1, 0, 0, 7)
                    .toFrame(ByteBufAllocator.DEFAULT));
            workerOnHijack.write(new Hello(Protocol.VERSION, Hello.ROLE_WORKER, 4242, 1, 0, 0)
                    .toFrame(ByteBufAllocator.DEFAULT));
            for (LinkClient peer : List.of(hijackOnLink, workerOnHijack)) {
                Frame goaway = peer.read();
                assertEquals(FrameType.GOAWAY, goaway.type());
                assertEquals(Goaway.CODE_PROTOCOL_ERROR, Goaway.decode(goaway.payload()).code());
                assertTrue(Goaway.decode(goaway.payload()).reason().contains("role 2 dials hijack.sock"),
                        Goaway.decode(goaway.payload()).reason());
                goaway.release();
                assertNull(peer.read(), "closed after GOAWAY(1)");
            }
        }
        assertEquals(0, dispatcher.snapshot().live(), "no slot from a worker on hijack.sock");
    }

    @Test
    void partialHijackWhoseConnectionArrivesFirstGetsTheHeadOnceAnnounced() throws Exception {
        Path socket = start(HostTransport.Kind.NIO);
        try (LinkClient worker = LinkClient.worker(socket, 4242, 0, 0);
             LinkClient hijack = new LinkClient(socket.resolveSibling(LinkServer.HIJACK_SOCKET))) {
            worker.read().release();
            await(() -> dispatcher.snapshot().live() == 1, "the slot");
            HijackingSink sink = new HijackingSink();
            Exchange ex = queue.admission.submit(new Object(), DispatcherTest.get("/partial"),
                    Unpooled.EMPTY_BUFFER, null, sink);
            worker.read().release();
            hijack.write(new Hello(Protocol.VERSION, Hello.ROLE_HIJACK, 4242, 1, 0, 0,
                    QueueFixture.requestId(ex)).toFrame(ByteBufAllocator.DEFAULT));
            await(() -> server.hijacks().waiting(QueueFixture.requestId(ex)), "the hijack connection to wait for the announcement");
            assertTrue(sink.events.isEmpty());
            worker.write(new ResponseHead(200, 0, 0, 0, List.of(Map.entry("content-type", "text/plain")))
                    .toFrame(ByteBufAllocator.DEFAULT, FrameType.HIJACK_HEAD, false));
            Frame welcome = hijack.read();
            assertEquals(FrameType.WELCOME, welcome.type());
            welcome.release();
            assertEquals(List.of("hijack 200 [content-type=text/plain]"), sink.events);
            await(() -> dispatcher.snapshot().busy() == 0 && dispatcher.snapshot().completed() == 1,
                    "the slot to be free: HIJACK_HEAD ends the response");
        }
    }

    @Test
    void fileTheHostCannotOpenFailsTheResponseAfterItsHead() throws Exception {
        Path socket = start(HostTransport.Kind.NIO);
        try (LinkClient worker = LinkClient.worker(socket, 4242, 0, 0)) {
            worker.read().release();
            await(() -> dispatcher.snapshot().live() == 1, "the slot");
            RecordingSink sink = new RecordingSink();
            queue.admission.submit(new Object(), DispatcherTest.get("/gone"), Unpooled.EMPTY_BUFFER, null, sink);
            worker.read().release();
            worker.write(new ResponseHead(200, 0, 0, 0, List.of()).toFrame(ByteBufAllocator.DEFAULT, false));
            worker.write(new ResponseFile(0, 10, "/nonexistent/puma-plus/file").toFrame(ByteBufAllocator.DEFAULT, true));
            assertEquals("fail 502 headSent=true", sink.done.get(5, TimeUnit.SECONDS));
            await(() -> dispatcher.snapshot().busy() == 0, "the link to be idle");
        }
    }

    @Test
    void earlyHintsReachTheSinkBeforeTheHead() throws Exception {
        Path socket = start(HostTransport.Kind.NIO);
        try (LinkClient worker = LinkClient.worker(socket, 4242, 0, 0)) {
            worker.read().release();
            await(() -> dispatcher.snapshot().live() == 1, "the slot");
            RecordingSink sink = new RecordingSink() {
                @Override
                public void earlyHints(List<Map.Entry<String, String>> headers) {
                    events.add("hints " + headers);
                }
            };
            queue.admission.submit(new Object(), DispatcherTest.get("/hints"), Unpooled.EMPTY_BUFFER, null, sink);
            worker.read().release();
            worker.write(new Frame(FrameType.EARLY_HINTS, 0, PairList.encode(ByteBufAllocator.DEFAULT,
                    List.of(Map.entry("link", "</a.css>; rel=preload")))));
            worker.write(new ResponseHead(204, 0, 0, 0, List.of()).toFrame(ByteBufAllocator.DEFAULT, true));
            assertEquals("end", sink.done.get(5, TimeUnit.SECONDS));
            assertEquals(List.of("hints [link=</a.css>; rel=preload]", "head 204 [] end"), sink.events);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(HostTransport.Kind.class)
    void workerDyingWhileBusyAnswers502AndAnotherWorkerKeepsServing(HostTransport.Kind kind) throws Exception {
        Path socket = start(kind);
        try (LinkClient dying = LinkClient.worker(socket, 1000, 0, 0);
             LinkClient healthy = LinkClient.worker(socket, 2000, 1, 0)) {
            dying.read().release();
            healthy.read().release();
            await(() -> dispatcher.snapshot().live() == 2, "two slots");
            RecordingSink first = new RecordingSink();
            RecordingSink second = new RecordingSink();
            queue.admission.submit(new Object(), DispatcherTest.get("/a"), Unpooled.EMPTY_BUFFER, null, first);
            queue.admission.submit(new Object(), DispatcherTest.get("/b"), Unpooled.EMPTY_BUFFER, null, second);
            dying.read().release();
            healthy.read().release();
            dying.close();
            String outcome = CompletableFuture.anyOf(first.done, second.done).get(5, TimeUnit.SECONDS).toString();
            assertEquals("fail 502 headSent=false", outcome);
            assertEquals(1, dispatcher.snapshot().live());
            healthy.write(new ResponseHead(204, 0, 0, 0, List.of()).toFrame(ByteBufAllocator.DEFAULT, true));
            CompletableFuture.allOf(first.done, second.done).get(5, TimeUnit.SECONDS);
            List<String> outcomes = List.of(first.done.get(), second.done.get());
            assertTrue(outcomes.contains("end") && outcomes.contains("fail 502 headSent=false"), outcomes.toString());
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(HostTransport.Kind.class)
    void shepherdLinkDeliversItsConfiguration(HostTransport.Kind kind) throws Exception {
        Path socket = start(kind);
        try (LinkClient shepherd = new LinkClient(socket)) {
            shepherd.write(new Hello(Protocol.VERSION, Hello.ROLE_SHEPHERD, 77, 1, 0, 0).toFrame(ByteBufAllocator.DEFAULT));
            Frame welcome = shepherd.read();
            assertEquals(FrameType.WELCOME, welcome.type());
            welcome.release();
            shepherd.write(new Frame(FrameType.CONFIG, 0, Unpooled.copiedBuffer("{\"workers\":2}", StandardCharsets.UTF_8)));
            assertEquals("{\"workers\":2}", config.get(5, TimeUnit.SECONDS));
            assertEquals(0, dispatcher.snapshot().live(), "the shepherd is not a slot");
        }
    }

    // ---- response backpressure ----

    /** RESPONSE_BODY frames the worker writes: far more than a unix socket buffer (about 200 KiB) holds. */
    private static final int FRAMES = 256;
    private static final int FRAME_BYTES = 32 * 1024;

    /** Records the index each body chunk starts with; answers {@link #acceptMore}. */
    static final class IndexSink implements ResponseSink {
        final List<Integer> indices = new java.util.concurrent.CopyOnWriteArrayList<>();
        final CompletableFuture<String> done = new CompletableFuture<>();
        volatile boolean acceptMore;
        volatile long bytes;

        @Override
        public void head(int status, List<Map.Entry<String, String>> headers, boolean endOfStream) {
        }

        /**
         * Reads the index at the start of every worker frame in the byte stream (held parts reach the sink in
         * pieces of other sizes than the worker's frames, so frame starts are found by offset).
         */
        @Override
        public boolean body(ByteBuf chunk, boolean endOfStream) {
            long start = bytes;
            for (long frame = (start + FRAME_BYTES - 1) / FRAME_BYTES * FRAME_BYTES;
                 frame + 4 <= start + chunk.readableBytes(); frame += FRAME_BYTES) {
                indices.add(chunk.getInt(chunk.readerIndex() + (int) (frame - start)));
            }
            bytes += chunk.readableBytes();
            chunk.release();
            if (endOfStream) {
                done.complete("end");
            }
            return acceptMore;
        }

        @Override
        public void fail(int status, String reason, boolean headSent) {
            done.complete("fail " + status);
        }
    }

    /** Writes a 200 head and {@link #FRAMES} body frames, each starting with its index, on a thread of its own. */
    private static CompletableFuture<Void> respondLarge(LinkClient worker) {
        CompletableFuture<Void> written = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try {
                worker.write(new ResponseHead(200, 0, 0, 0, List.of()).toFrame(ByteBufAllocator.DEFAULT, false));
                for (int i = 0; i < FRAMES; i++) {
                    ByteBuf payload = Unpooled.buffer(FRAME_BYTES).writeInt(i).writeZero(FRAME_BYTES - 4);
                    worker.write(Frame.of(FrameType.RESPONSE_BODY, i == FRAMES - 1, payload));
                }
                written.complete(null);
            } catch (Exception e) {
                written.completeExceptionally(e);
            }
        });
        return written;
    }

    /**
     * Waits until the worker has written its whole response while the sink is still paused: the link keeps
     * reading at the worker's speed and is idle again once the response's END_STREAM came. Returns how many
     * chunks the sink got (those before its pause).
     */
    private int awaitWrittenWhilePaused(IndexSink sink, CompletableFuture<Void> written) throws Exception {
        written.get(5, TimeUnit.SECONDS);
        await(() -> dispatcher.snapshot().busy() == 0 && dispatcher.snapshot().completed() == 1,
                "the link to be idle while the client has not read");
        int paused = sink.indices.size();
        assertTrue(paused < FRAMES, "the sink paused long before the end: " + paused);
        assertFalse(sink.done.isDone());
        return paused;
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(HostTransport.Kind.class)
    void sinkAskingForAPauseFreesTheSlotOnceTheWorkerWroteItAllThenEveryFrameArrivesInOrder(HostTransport.Kind kind)
            throws Exception {
        Path socket = start(kind);
        try (LinkClient worker = LinkClient.worker(socket, 4242, 0, 0)) {
            worker.read().release();
            await(() -> dispatcher.snapshot().live() == 1, "the slot");
            IndexSink sink = new IndexSink();
            Exchange ex = queue.admission.submit(new Object(), DispatcherTest.get("/large"), Unpooled.EMPTY_BUFFER,
                    null, sink);
            worker.read().release(); // REQUEST
            CompletableFuture<Void> written = respondLarge(worker);
            awaitWrittenWhilePaused(sink, written);
            sink.acceptMore = true;
            ex.resumeResponse();
            assertEquals("end", sink.done.get(5, TimeUnit.SECONDS));
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < FRAMES; i++) {
                expected.add(i);
            }
            assertEquals(expected, sink.indices, "every frame, once, in order");
            assertEquals((long) FRAMES * FRAME_BYTES, sink.bytes);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(HostTransport.Kind.class)
    void cancellingAPausedExchangeDropsWhatIsHeldAndTheLinkServesTheNextRequest(HostTransport.Kind kind)
            throws Exception {
        Path socket = start(kind);
        try (LinkClient worker = LinkClient.worker(socket, 4242, 0, 0)) {
            worker.read().release();
            await(() -> dispatcher.snapshot().live() == 1, "the slot");
            IndexSink sink = new IndexSink();
            Exchange ex = queue.admission.submit(new Object(), DispatcherTest.get("/abandoned"), Unpooled.EMPTY_BUFFER,
                    null, sink);
            worker.read().release();
            CompletableFuture<Void> written = respondLarge(worker);
            int paused = awaitWrittenWhilePaused(sink, written);
            ex.cancel(); // the client went away; nobody resumes the sink
            sink.acceptMore = true;
            ex.resumeResponse(); // a late resume of the cancelled exchange delivers nothing
            QueueFixture.awaitLinkLoop(ex);
            assertEquals(paused, sink.indices.size(), "the rest is discarded, not delivered");
            assertFalse(sink.done.isDone());

            RecordingSink next = new RecordingSink();
            queue.admission.submit(new Object(), DispatcherTest.get("/next"), Unpooled.EMPTY_BUFFER, null, next);
            Frame request = worker.read();
            assertEquals("/next", EmbeddedWorker.env(List.of(request), "PATH_INFO"));
            request.release();
            worker.write(new ResponseHead(200, 0, 0, 0, List.of()).toFrame(ByteBufAllocator.DEFAULT, false));
            worker.write(Frame.of(FrameType.RESPONSE_BODY, true,
                    Unpooled.copiedBuffer("served", StandardCharsets.US_ASCII)));
            assertEquals("end", next.done.get(5, TimeUnit.SECONDS));
            assertEquals("served", next.bodyText());
        }
    }
}
