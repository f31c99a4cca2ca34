/*
 * Claims about the worker link over a real unix socket (epoll and NIO): the HELLO/WELCOME handshake, the
 * dispatch of a request to a dialled-in worker and of its response back to the protocol's sink, and what
 * happens when a worker dies or breaks the protocol.
 */
package dev.pumaplus.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pumaplus.wire.Frame;
import dev.pumaplus.wire.FrameType;
import dev.pumaplus.wire.Goaway;
import dev.pumaplus.wire.Hello;
import dev.pumaplus.wire.ResponseHead;
import dev.pumaplus.wire.Welcome;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.epoll.Epoll;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(20)
class LinkServerTest {

    private HostTransport transport;
    private LinkServer server;
    private Dispatcher dispatcher;
    private Path dir;
    private final CompletableFuture<String> config = new CompletableFuture<>();

    private Path start(boolean epoll) throws Exception {
        if (epoll) {
            Assumptions.assumeTrue(Epoll.isAvailable(), "native epoll not available");
        }
        dir = Files.createTempDirectory("puma-plus-test-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        transport = HostTransport.create(epoll, 2);
        dispatcher = new Dispatcher(ByteBufAllocator.DEFAULT);
        server = new LinkServer(transport, dispatcher, (link, hello, json) -> config.complete(json));
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

    @ParameterizedTest(name = "epoll={0}")
    @ValueSource(booleans = {true, false})
    void helloIsAnsweredWithWelcomeAndTheWorkerBecomesALiveSlot(boolean epoll) throws Exception {
        Path socket = start(epoll);
        try (LinkClient worker = LinkClient.worker(socket, 4242, 0, 0)) {
            Frame welcome = worker.read();
            assertEquals(FrameType.WELCOME, welcome.type());
            assertEquals(1, Welcome.decode(welcome.payload()).version());
            assertTrue(Welcome.decode(welcome.payload()).linkId() > 0);
            welcome.release();
            await(() -> dispatcher.snapshot().live() == 1, "the slot");
        }
        await(() -> dispatcher.snapshot().live() == 0, "the slot to go away with its link");
    }

    @ParameterizedTest(name = "epoll={0}")
    @ValueSource(booleans = {true, false})
    void unsupportedVersionGetsGoawayTwoAndTheLinkIsClosed(boolean epoll) throws Exception {
        Path socket = start(epoll);
        try (LinkClient peer = new LinkClient(socket)) {
            peer.write(new Hello(0, 0, 1, 1, 0, 0, "").toFrame(ByteBufAllocator.DEFAULT));
            Frame goaway = peer.read();
            assertEquals(FrameType.GOAWAY, goaway.type());
            assertEquals(Goaway.CODE_UNSUPPORTED_VERSION, Goaway.decode(goaway.payload()).code());
            goaway.release();
            assertNull(peer.read(), "closed after GOAWAY(2)");
        }
        assertEquals(0, dispatcher.snapshot().live());
    }

    @ParameterizedTest(name = "epoll={0}")
    @ValueSource(booleans = {true, false})
    void frameBeforeHelloIsAProtocolErrorAnsweredWithGoawayOne(boolean epoll) throws Exception {
        Path socket = start(epoll);
        try (LinkClient peer = new LinkClient(socket)) {
            peer.write(Frame.empty(FrameType.RESPONSE_BODY, true));
            Frame goaway = peer.read();
            assertEquals(Goaway.CODE_PROTOCOL_ERROR, Goaway.decode(goaway.payload()).code());
            goaway.release();
            assertNull(peer.read());
        }
    }

    @ParameterizedTest(name = "epoll={0}")
    @ValueSource(booleans = {true, false})
    void dispatchedRequestReachesTheWorkerAndItsResponseReachesTheSink(boolean epoll) throws Exception {
        Path socket = start(epoll);
        try (LinkClient worker = LinkClient.worker(socket, 4242, 0, 0)) {
            worker.read().release();
            await(() -> dispatcher.snapshot().live() == 1, "the slot");
            RecordingSink sink = new RecordingSink();
            dispatcher.submit(new Object(), DispatcherTest.get("/hello?x=1"),
                    Unpooled.copiedBuffer("name=alpha1", StandardCharsets.US_ASCII), true, sink);
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
            worker.write(new ResponseHead(201, List.of(Map.entry("set-cookie", "a=1"), Map.entry("set-cookie", "b=2")))
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

    @ParameterizedTest(name = "epoll={0}")
    @ValueSource(booleans = {true, false})
    void workerDyingWhileBusyAnswers502AndAnotherWorkerKeepsServing(boolean epoll) throws Exception {
        Path socket = start(epoll);
        try (LinkClient dying = LinkClient.worker(socket, 1000, 0, 0);
             LinkClient healthy = LinkClient.worker(socket, 2000, 1, 0)) {
            dying.read().release();
            healthy.read().release();
            await(() -> dispatcher.snapshot().live() == 2, "two slots");
            RecordingSink first = new RecordingSink();
            RecordingSink second = new RecordingSink();
            dispatcher.submit(new Object(), DispatcherTest.get("/a"), Unpooled.EMPTY_BUFFER, true, first);
            dispatcher.submit(new Object(), DispatcherTest.get("/b"), Unpooled.EMPTY_BUFFER, true, second);
            dying.read().release();
            healthy.read().release();
            dying.close();
            String outcome = CompletableFuture.anyOf(first.done, second.done).get(5, TimeUnit.SECONDS).toString();
            assertEquals("fail 502 headSent=false", outcome);
            assertEquals(1, dispatcher.snapshot().live());
            healthy.write(new ResponseHead(204, List.of()).toFrame(ByteBufAllocator.DEFAULT, true));
            CompletableFuture.allOf(first.done, second.done).get(5, TimeUnit.SECONDS);
            List<String> outcomes = List.of(first.done.get(), second.done.get());
            assertTrue(outcomes.contains("end") && outcomes.contains("fail 502 headSent=false"), outcomes.toString());
        }
    }

    @ParameterizedTest(name = "epoll={0}")
    @ValueSource(booleans = {true, false})
    void shepherdLinkDeliversItsConfiguration(boolean epoll) throws Exception {
        Path socket = start(epoll);
        try (LinkClient shepherd = new LinkClient(socket)) {
            shepherd.write(new Hello(1, Hello.ROLE_SHEPHERD, 77, 1, 0, 0, "fork").toFrame(ByteBufAllocator.DEFAULT));
            Frame welcome = shepherd.read();
            assertEquals(FrameType.WELCOME, welcome.type());
            welcome.release();
            shepherd.write(new Frame(FrameType.CONFIG, 0, Unpooled.copiedBuffer("{\"workers\":2}", StandardCharsets.UTF_8)));
            assertEquals("{\"workers\":2}", config.get(5, TimeUnit.SECONDS));
            assertEquals(0, dispatcher.snapshot().live(), "the shepherd is not a slot");
        }
    }

    @ParameterizedTest(name = "epoll={0}")
    @ValueSource(booleans = {true, false})
    void goawayReachesEveryLink(boolean epoll) throws Exception {
        Path socket = start(epoll);
        try (LinkClient worker = LinkClient.worker(socket, 1, 0, 0)) {
            worker.read().release();
            await(() -> dispatcher.snapshot().live() == 1, "the slot");
            server.goawayAll("shutdown");
            Frame goaway = worker.read();
            assertEquals(new Goaway(0, "shutdown"), Goaway.decode(goaway.payload()));
            goaway.release();
        }
    }
}
