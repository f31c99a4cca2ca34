/*
 * Claims about the queue step of the request path: order, fairness across connections, cancellation,
 * slot accounting, request body streaming, link failure, the hot-queue watch and the concurrency limit of
 * fiber slots, checked on real WorkerLinks over embedded channels.
 */
package dev.pumaplus.host.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pumaplus.host.measure.QueueMetrics;
import dev.pumaplus.spi.Exchange;
import dev.pumaplus.spi.RequestHead;
import dev.pumaplus.wire.Frame;
import dev.pumaplus.wire.FrameType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
public class DispatcherTest {

    private final QueueFixture queue = new QueueFixture();
    private final Dispatcher dispatcher = queue.dispatcher;

    @AfterEach
    void releaseBuffers() {
        queue.releaseAll();
    }

    public static RequestHead get(String target) {
        return new RequestHead("GET", target, "HTTP/1.1", "http", new InetSocketAddress("127.0.0.1", 9292),
                new InetSocketAddress("127.0.0.1", 50000), List.of(Map.entry("Host", "localhost:9292")), 1, 2);
    }

    private Exchange submit(Object connection, String target, RecordingSink sink) {
        return queue.admission.submit(connection, get(target), Unpooled.EMPTY_BUFFER, null, sink);
    }

    @Test
    void requestIsDispatchedAtOnceToAnIdleLink() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        RecordingSink sink = new RecordingSink();
        submit(new Object(), "/now", sink);
        List<Frame> frames = worker.sent();
        assertEquals(1, frames.size());
        assertEquals(FrameType.REQUEST, frames.get(0).type());
        assertTrue(frames.get(0).endStream(), "a GET without body ends with its REQUEST");
        assertEquals("/now", EmbeddedWorker.env(frames, "PATH_INFO"));
        frames.forEach(Frame::release);
        assertEquals(0, dispatcher.snapshot().depth());
        assertEquals(1, dispatcher.snapshot().busy());
        worker.respond("hi");
        assertEquals("hi", sink.bodyText());
        assertEquals(200, sink.status);
        assertEquals(0, dispatcher.snapshot().busy());
        assertEquals(1, dispatcher.snapshot().completed());
    }

    @Test
    void dispatchesOldestRequestFirst() {
        List<RecordingSink> sinks = new ArrayList<>();
        for (String path : List.of("/a", "/b", "/c")) {
            RecordingSink sink = new RecordingSink();
            sinks.add(sink);
            submit(new Object(), path, sink);
        }
        assertEquals(3, dispatcher.snapshot().depth());
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        List<String> order = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            order.add(worker.takeRequestPath());
            worker.respond("ok");
        }
        assertEquals(List.of("/a", "/b", "/c"), order);
        assertEquals(0, dispatcher.snapshot().depth());
    }

    @Test
    void queueTimeClockStartsAtSubmitAndStopsAtDispatch() {
        Exchange ex = submit(new Object(), "/timed", new RecordingSink());
        queue.advance(20_000_000L);
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        queue.advance(5_000_000L); // after dispatch: not queue time
        worker.takeRequestPath();
        QueuedExchange q = (QueuedExchange) ex;
        assertEquals(20_000_000L, q.dispatchedNanos() - q.runnableNanos,
                "queue time is exactly the wait for a slot");
    }

    @Test
    void queuedRequestCancelledByClientIsNeverDispatched() {
        RecordingSink goneSink = new RecordingSink();
        Exchange gone = submit(new Object(), "/gone", goneSink);
        submit(new Object(), "/stays", new RecordingSink());
        gone.cancel();
        gone.cancel(); // idempotent
        assertEquals(1, dispatcher.snapshot().depth());
        assertEquals(1, dispatcher.snapshot().dropped());
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        assertEquals("/stays", worker.takeRequestPath());
        worker.respond("ok");
        assertNull(worker.takeRequestPath(), "the cancelled request never reaches a worker");
        assertTrue(goneSink.events.isEmpty(), "nothing is delivered for a cancelled request");
    }

    @Test
    void pipelinedRequestsOfOneConnectionDoNotStarveAnother() {
        Object pipelining = new Object();
        for (int i = 1; i <= 5; i++) {
            submit(pipelining, "/p" + i, new RecordingSink());
        }
        submit(new Object(), "/other", new RecordingSink());
        assertEquals(6, dispatcher.snapshot().depth(), "held requests count in the queue depth");
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        List<String> order = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            order.add(worker.takeRequestPath());
            worker.respond("ok");
        }
        assertEquals(List.of("/p1", "/other", "/p2", "/p3", "/p4", "/p5"), order);
    }

    @Test
    void oneConnectionMayUseSeveralFreeSlotsAtOnce() {
        EmbeddedWorker a = new EmbeddedWorker(queue, 100, 0);
        EmbeddedWorker b = new EmbeddedWorker(queue, 200, 1);
        Object connection = new Object();
        submit(connection, "/one", new RecordingSink());
        submit(connection, "/two", new RecordingSink());
        assertEquals(2, dispatcher.snapshot().busy());
        assertEquals("/one", a.takeRequestPath());
        assertEquals("/two", b.takeRequestPath());
    }

    @Test
    void cancellingAHeldRequestKeepsTheRestOfItsConnectionInOrder() {
        Object connection = new Object();
        submit(connection, "/1", new RecordingSink());
        Exchange second = submit(connection, "/2", new RecordingSink());
        submit(connection, "/3", new RecordingSink());
        second.cancel();
        assertEquals(2, dispatcher.snapshot().depth());
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        assertEquals("/1", worker.takeRequestPath());
        worker.respond("ok");
        assertEquals("/3", worker.takeRequestPath());
    }

    @Test
    void requestsSpreadAcrossWorkerProcessesBeforeSharingOne() {
        EmbeddedWorker a1 = new EmbeddedWorker(queue, 100, 0);
        EmbeddedWorker a2 = new EmbeddedWorker(queue, 100, 0);
        EmbeddedWorker b1 = new EmbeddedWorker(queue, 200, 1);
        submit(new Object(), "/x", new RecordingSink());
        submit(new Object(), "/y", new RecordingSink());
        assertEquals("/x", a2.takeRequestPath(), "process 100 idled first; of its links, the one idle last");
        assertNull(a1.takeRequestPath(), "the second request goes to the idle process, not the busy one");
        assertEquals("/y", b1.takeRequestPath());
    }

    @Test
    void withinAProcessTheLinkThatAnsweredLastTakesTheNextRequest() {
        EmbeddedWorker a1 = new EmbeddedWorker(queue, 100, 0);
        EmbeddedWorker a2 = new EmbeddedWorker(queue, 100, 0);
        EmbeddedWorker a3 = new EmbeddedWorker(queue, 100, 0);
        for (int i = 0; i < 5; i++) {
            submit(new Object(), "/" + i, new RecordingSink());
            assertEquals("/" + i, a3.takeRequestPath(), "request " + i + " on the thread that just answered");
            a3.respond("ok");
        }
        assertNull(a1.takeRequestPath(), "the process's other threads were never woken");
        assertNull(a2.takeRequestPath());
        submit(new Object(), "/busy", new RecordingSink());
        submit(new Object(), "/second", new RecordingSink());
        assertEquals("/busy", a3.takeRequestPath());
        assertEquals("/second", a2.takeRequestPath(), "with that one busy: the one idle the shortest time");
    }

    @Test
    void cancelAfterDispatchDiscardsTheResponseAndFreesTheLink() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        RecordingSink sink = new RecordingSink();
        Exchange ex = submit(new Object(), "/slow", sink);
        worker.takeRequestPath();
        ex.cancel();
        worker.respond("late");
        assertTrue(sink.events.isEmpty(), "a gone client gets nothing: " + sink.events);
        assertEquals(0, dispatcher.snapshot().busy());
        assertEquals(0, dispatcher.snapshot().dropped(), "only cancels before dispatch count as dropped");
        submit(new Object(), "/next", new RecordingSink());
        assertEquals("/next", worker.takeRequestPath());
    }

    @Test
    void linkDeathWhileBusyAnswers502AndLeavesOtherLinksServing() {
        EmbeddedWorker dying = new EmbeddedWorker(queue, 100, 0);
        EmbeddedWorker healthy = new EmbeddedWorker(queue, 200, 1);
        RecordingSink dyingSink = new RecordingSink();
        RecordingSink healthySink = new RecordingSink();
        submit(new Object(), "/dies", dyingSink);
        submit(new Object(), "/lives", healthySink);
        dying.takeRequestPath();
        healthy.takeRequestPath();
        dying.channel.close();
        assertEquals(List.of("fail 502 headSent=false"), dyingSink.events);
        assertEquals(1, dispatcher.snapshot().live());
        assertEquals(1, dispatcher.snapshot().busy());
        healthy.respond("fine");
        assertEquals("fine", healthySink.bodyText());
    }

    @Test
    void fieldsThatCouldSplitTheResponseNeverReachTheProtocol() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        RecordingSink sink = new RecordingSink();
        submit(new Object(), "/split", sink);
        worker.takeRequestPath();
        worker.channel.writeInbound(new dev.pumaplus.wire.ResponseHead(200, 0, 0, 0, List.of(
                        Map.entry("X-Bad", "a\r\nInjected: 1"), Map.entry("Bad Name", "v"), Map.entry("X-Nul", "a\0b"),
                        Map.entry("Set-Cookie", "a=1"), Map.entry("Set-Cookie", "b=2")))
                .toFrame(ByteBufAllocator.DEFAULT, true));
        assertEquals("head 200 [Set-Cookie=a=1, Set-Cookie=b=2] end", sink.events.get(0));
    }

    @Test
    void linkDeathAfterTheHeadReportsHeadSent() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        RecordingSink sink = new RecordingSink();
        submit(new Object(), "/half", sink);
        worker.takeRequestPath();
        worker.channel.writeInbound(new dev.pumaplus.wire.ResponseHead(200, 0, 0, 0, List.of())
                .toFrame(ByteBufAllocator.DEFAULT, false));
        worker.channel.close();
        assertEquals("fail 502 headSent=true", sink.events.get(sink.events.size() - 1));
    }

    @Test
    void responseAbortFailsTheExchangeAndReturnsTheLinkToIdle() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        RecordingSink sink = new RecordingSink();
        submit(new Object(), "/abort", sink);
        worker.takeRequestPath();
        worker.channel.writeInbound(new dev.pumaplus.wire.ResponseHead(200, 0, 0, 0, List.of())
                .toFrame(ByteBufAllocator.DEFAULT, false));
        worker.channel.writeInbound(Frame.of(FrameType.RESPONSE_ABORT, false,
                Unpooled.copiedBuffer("boom", StandardCharsets.UTF_8)));
        assertEquals("fail 502 headSent=true", sink.events.get(1));
        assertEquals(0, dispatcher.snapshot().busy());
        assertEquals(1, dispatcher.snapshot().live());
    }

    @Test
    void responseFrameWhileIdleIsAProtocolErrorThatClosesTheLink() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        worker.channel.writeInbound(Frame.empty(FrameType.RESPONSE_BODY, true));
        List<Frame> sent = worker.sent();
        assertEquals(FrameType.GOAWAY, sent.get(0).type());
        assertEquals(1, dev.pumaplus.wire.Goaway.decode(sent.get(0).payload()).code());
        sent.forEach(Frame::release);
        assertFalse(worker.channel.isActive());
        assertEquals(0, dispatcher.snapshot().live());
    }

    @Test
    void spooledBodyGoesDownWholeInBodyFramesAndTheFileIsClosed() throws IOException {
        RecordingSink sink = new RecordingSink();
        byte[] bytes = new byte[Frame.MAX_PAYLOAD + 10];
        bytes[Frame.MAX_PAYLOAD + 9] = 42;
        FileChannel file = spooled(bytes);
        queue.admission.submit(new Object(), get("/upload"), Unpooled.EMPTY_BUFFER, file, sink);
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        List<Frame> frames = worker.sent();
        assertEquals(List.of(FrameType.REQUEST, FrameType.BODY, FrameType.BODY), types(frames));
        assertFalse(frames.get(0).endStream());
        assertEquals(Frame.MAX_PAYLOAD, frames.get(1).payload().readableBytes());
        assertFalse(frames.get(1).endStream());
        assertEquals(10, frames.get(2).payload().readableBytes());
        assertEquals(42, frames.get(2).payload().getByte(frames.get(2).payload().readerIndex() + 9));
        assertTrue(frames.get(2).endStream());
        frames.forEach(Frame::release);
        assertFalse(file.isOpen(), "the spool file is closed once its last frame is written");
        worker.respond("stored");
        assertEquals(0, dispatcher.snapshot().busy());
    }

    @Test
    void spooledBodyOfARequestShedOrAnsweredByTheHostIsClosed() throws IOException {
        queue.admission.healthCheck("/health", true);
        FileChannel file = spooled(new byte[10]);
        queue.admission.submit(new Object(), get("/health"), Unpooled.EMPTY_BUFFER, file, new RecordingSink());
        assertFalse(file.isOpen());
    }

    /** An unnamed file holding {@code bytes}, as RequestBodyBuffer spools a body. */
    static FileChannel spooled(byte[] bytes) throws IOException {
        Path path = Files.createTempFile("dispatcher-test", ".body");
        FileChannel file = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        Files.delete(path);
        file.write(ByteBuffer.wrap(bytes));
        return file;
    }

    @Test
    void bodyChunkLargerThanMaxPayloadIsSplitAcrossBodyFrames() {
        byte[] big = new byte[Frame.MAX_PAYLOAD + 10];
        queue.admission.submit(new Object(), get("/split"), Unpooled.wrappedBuffer(big), null, new RecordingSink());
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        List<Frame> frames = worker.sent();
        assertEquals(List.of(FrameType.REQUEST, FrameType.BODY, FrameType.BODY), types(frames));
        assertEquals(Frame.MAX_PAYLOAD, frames.get(1).payload().readableBytes());
        assertEquals(10, frames.get(2).payload().readableBytes());
        assertFalse(frames.get(1).endStream());
        assertTrue(frames.get(2).endStream());
        frames.forEach(Frame::release);
    }

    @Test
    void responseBeforeTheWorkerReadTheBodyFreesTheLinkWithNoMoreFrames() {
        RecordingSink sink = new RecordingSink();
        queue.admission.submit(new Object(), get("/413"), ascii("part"), null, sink);
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        List<Frame> frames = worker.sent();
        assertEquals(List.of(FrameType.REQUEST, FrameType.BODY), types(frames));
        assertTrue(frames.get(1).endStream(), "a complete body goes down whole at dispatch");
        frames.forEach(Frame::release);
        worker.respond("too large");
        assertTrue(worker.sent().isEmpty());
        assertEquals(0, dispatcher.snapshot().busy());
    }

    @Test
    void requestIdsAreUniqueAndIncreasing() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        submit(new Object(), "/1", new RecordingSink());
        List<Frame> first = worker.sent();
        worker.respond("ok");
        submit(new Object(), "/2", new RecordingSink());
        List<Frame> second = worker.sent();
        long a = Long.parseLong(EmbeddedWorker.env(first, "puma_plus.request_id"));
        long b = Long.parseLong(EmbeddedWorker.env(second, "puma_plus.request_id"));
        assertNotEquals(a, b);
        assertTrue(b > a);
        first.forEach(Frame::release);
        second.forEach(Frame::release);
    }

    @Test
    void workerGoawayWhileBusyLetsTheResponseFinishThenClosesTheLink() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        RecordingSink sink = new RecordingSink();
        submit(new Object(), "/last", sink);
        worker.takeRequestPath();
        worker.channel.writeInbound(new dev.pumaplus.wire.Goaway(0, "bye").toFrame(ByteBufAllocator.DEFAULT));
        assertTrue(worker.channel.isActive(), "a busy link is not closed under its request");
        submit(new Object(), "/queued", new RecordingSink());
        worker.respond("done");
        assertEquals("done", sink.bodyText());
        assertFalse(worker.channel.isActive(), "closed once its request finished");
        assertEquals(1, dispatcher.snapshot().depth(), "nothing more is dispatched to a draining link");
        assertEquals(0, dispatcher.snapshot().live());
    }

    @Test
    void drainWaitsForRunningRequestsToFinish() throws Exception {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        RecordingSink sink = new RecordingSink();
        submit(new Object(), "/finishing", sink);
        worker.takeRequestPath();
        CompletableFuture<Boolean> drained = new CompletableFuture<>();
        Thread drainer = new Thread(() -> drained.complete(dispatcher.drain(5_000_000_000L, Runnable::run)));
        drainer.start();
        while (drainer.getState() != Thread.State.TIMED_WAITING) { // parked in drain, waiting for the request
            Thread.onSpinWait();
        }
        assertFalse(drained.isDone(), "the drain waits while a request runs");
        worker.respond("finished");
        assertTrue(drained.get(5, TimeUnit.SECONDS), "finished within the timeout");
        assertEquals("finished", sink.bodyText());
    }

    @Test
    void drainPastTheTimeoutAnswersQueuedAndRunningRequestsWith503() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        RecordingSink running = new RecordingSink();
        RecordingSink queued = new RecordingSink();
        submit(new Object(), "/stuck", running);
        submit(new Object(), "/waiting", queued);
        worker.takeRequestPath();
        assertFalse(dispatcher.drain(20_000_000L, Runnable::run));
        worker.channel.runPendingTasks();
        assertEquals(List.of("fail 503 headSent=false"), queued.events);
        assertEquals(List.of("fail 503 headSent=false"), running.events);
        assertEquals(0, dispatcher.snapshot().depth());
        assertEquals(0, dispatcher.snapshot().busy());
    }

    @Test
    void requestSubmittedAfterTheDrainIsAnswered503AndNeverDispatched() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        assertTrue(dispatcher.drain(0, Runnable::run));
        RecordingSink late = new RecordingSink();
        submit(new Object(), "/late", late);
        assertEquals(List.of("fail 503 headSent=false"), late.events);
        assertNull(worker.takeRequestPath());
        assertEquals(0, dispatcher.snapshot().depth());
    }

    @Test
    void idleLinkClosingAfterTheDrainLeavesNoIdleSlotCounted() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        assertFalse(dispatcher.wouldWait(), "an idle link: a request would not wait");
        assertTrue(dispatcher.drain(0, Runnable::run));
        assertTrue(dispatcher.wouldWait(), "a draining link takes nothing");
        worker.channel.close();
        assertEquals(0, dispatcher.snapshot().live());
        assertTrue(dispatcher.wouldWait(), "no idle link is counted once it closed");
    }

    // ---- response backpressure ----

    private static void head(EmbeddedWorker worker) {
        worker.channel.writeInbound(new dev.pumaplus.wire.ResponseHead(200, 0, 0, 0, List.of())
                .toFrame(ByteBufAllocator.DEFAULT, false));
    }

    private static void body(EmbeddedWorker worker, String text, boolean end) {
        worker.channel.writeInbound(Frame.of(FrameType.RESPONSE_BODY, end, ascii(text)));
        worker.channel.runPendingTasks();
    }

    @Test
    void sinkAskingForAPauseHoldsTheRestAndTheWorkerIsFreeOnceItWroteItAll() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        RecordingSink sink = new RecordingSink();
        sink.acceptMore = false;
        Exchange ex = submit(new Object(), "/big", sink);
        worker.takeRequestPath();
        head(worker);
        body(worker, "a", false);
        body(worker, "b", false);
        assertTrue(worker.channel.config().isAutoRead(), "the worker is never paced by the client");
        assertEquals("a", sink.bodyText(), "after the pause the rest is held");
        body(worker, "c", true);
        assertEquals(0, dispatcher.snapshot().busy(), "the slot is free once the worker wrote its response");
        assertEquals(1, dispatcher.snapshot().completed());
        sink.acceptMore = true;
        ex.resumeResponse();
        worker.channel.runPendingTasks();
        assertEquals("abc", sink.bodyText(), "the held parts follow, in order, at the resume");
        assertEquals("body end", sink.events.get(sink.events.size() - 1));
    }

    @Test
    void heldBytesPastTheMemoryBoundGoThroughTheSpoolFileIntact() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        RecordingSink sink = new RecordingSink();
        sink.acceptMore = false;
        Exchange ex = submit(new Object(), "/spooled", sink);
        worker.takeRequestPath();
        head(worker);
        body(worker, "start,", false);
        StringBuilder expected = new StringBuilder("start,");
        for (int i = 0; i < 40; i++) { // 40 × 16 KiB: past ResponseSpool.MEMORY_BYTES
            String piece = Integer.toString(i % 10).repeat(16 * 1024);
            expected.append(piece);
            body(worker, piece, i == 39);
        }
        assertEquals(0, dispatcher.snapshot().busy());
        sink.acceptMore = true;
        ex.resumeResponse();
        worker.channel.runPendingTasks();
        assertEquals(expected.toString(), sink.bodyText());
        assertEquals("body end", sink.events.get(sink.events.size() - 1));
    }

    @Test
    void resumeSentFromInsideBodyStillEndsThePauseItAnswers() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        RecordingSink sink = new RecordingSink();
        sink.acceptMore = false;
        Exchange ex = submit(new Object(), "/race", sink);
        sink.duringBody = () -> {
            sink.acceptMore = true;
            ex.resumeResponse(); // as a protocol whose write completed at once would
        };
        worker.takeRequestPath();
        head(worker);
        body(worker, "a", false);
        body(worker, "b", true);
        worker.channel.runPendingTasks();
        assertEquals("ab", sink.bodyText(), "the resume is acted on after the pause, so it is not lost");
    }

    @Test
    void resumeOfAFinishedExchangeDeliversOnlyItsOwnHeldParts() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        RecordingSink first = new RecordingSink();
        first.acceptMore = false;
        Exchange firstEx = submit(new Object(), "/first", first);
        worker.takeRequestPath();
        head(worker);
        body(worker, "a", false);
        body(worker, "b", true);
        RecordingSink second = new RecordingSink();
        second.acceptMore = false;
        Exchange secondEx = submit(new Object(), "/second", second);
        worker.takeRequestPath();
        head(worker);
        body(worker, "c", false);
        body(worker, "d", false);
        first.acceptMore = true;
        firstEx.resumeResponse();
        worker.channel.runPendingTasks();
        assertEquals("ab", first.bodyText());
        assertEquals("c", second.bodyText(), "the other response stays paused");
        second.acceptMore = true;
        secondEx.resumeResponse();
        worker.channel.runPendingTasks();
        assertEquals("cd", second.bodyText());
    }

    @Test
    void cancellingAPausedExchangeDropsWhatIsHeld() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        RecordingSink sink = new RecordingSink();
        sink.acceptMore = false;
        Exchange ex = submit(new Object(), "/gone", sink);
        worker.takeRequestPath();
        head(worker);
        body(worker, "a", false);
        body(worker, "held", false);
        ex.cancel();
        worker.channel.runPendingTasks();
        body(worker, "discarded", true);
        assertEquals(0, dispatcher.snapshot().busy());
        sink.acceptMore = true;
        ex.resumeResponse(); // late resume of a cancelled exchange: a no-op
        worker.channel.runPendingTasks();
        assertEquals("a", sink.bodyText(), "nothing reaches the sink after the cancel");
    }

    private static ByteBuf ascii(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
    }

    // --- a request given to a link that closed before the worker had it -----------------------------------

    /**
     * A worker socket whose peer is gone (EPIPE): every write fails when flushed, and the channel closes, as
     * Netty does on a failed flush.
     */
    private static final class BrokenPipe extends ChannelOutboundHandlerAdapter {
        private final List<ChannelPromise> pending = new ArrayList<>();

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            ReferenceCountUtil.release(msg);
            pending.add(promise);
        }

        @Override
        public void flush(ChannelHandlerContext ctx) {
            IOException epipe = new IOException("Broken pipe");
            pending.forEach(p -> p.setFailure(epipe));
            pending.clear();
            ctx.close();
        }
    }

    /** A link of worker process {@code pid} whose worker is dead: the REQUEST frame's write fails. */
    private EmbeddedWorker brokenWorker(long pid) {
        EmbeddedWorker worker = new EmbeddedWorker(queue, pid, pid);
        worker.channel.pipeline().addFirst(new BrokenPipe());
        return worker;
    }

    @Test
    void requestGivenToALinkThatClosedBeforeItCameToItIsAnsweredByTheNextLinkNot502() {
        EmbeddedWorker dying = new EmbeddedWorker(queue, 100, 0);
        EmbeddedWorker healthy = new EmbeddedWorker(queue, 200, 1);
        RecordingSink sink = new RecordingSink();
        byte[] big = new byte[Frame.MAX_PAYLOAD + 10];
        big[Frame.MAX_PAYLOAD + 9] = 42;
        QueuedExchange ex = (QueuedExchange) queue.admission.submit(new Object(), get("/retry"),
                Unpooled.wrappedBuffer(big), null, sink);
        assertTrue(ex.ticket.link() == dying.link, "dispatched to the first idle link");
        dying.channel.pipeline().close(); // the worker died: closed before the link's event loop ran the request
        dying.channel.runPendingTasks();
        assertEquals(List.of(), sink.events, "no 502 for a request no worker had");
        List<Frame> frames = healthy.sent();
        assertEquals(List.of(FrameType.REQUEST, FrameType.BODY, FrameType.BODY), types(frames));
        assertEquals("/retry", EmbeddedWorker.env(frames, "PATH_INFO"));
        assertEquals(Frame.MAX_PAYLOAD, frames.get(1).payload().readableBytes());
        assertEquals(42, frames.get(2).payload().getByte(frames.get(2).payload().readerIndex() + 9),
                "the whole in-memory body goes down the next link");
        frames.forEach(Frame::release);
        healthy.respond("second link");
        assertEquals("second link", sink.bodyText());
        assertFalse(sink.events.stream().anyMatch(e -> e.startsWith("fail")), sink.events.toString());
        assertEquals(1, dispatcher.snapshot().completed());
        assertEquals(1, dispatcher.snapshot().redispatched(), "counted, for /stats and /metrics");
        assertEquals(0, dispatcher.snapshot().busy());
    }

    @Test
    void requestWhoseRequestFrameWriteFailedIsSentWholeFromItsSpoolFileDownTheNextLink() throws IOException {
        EmbeddedWorker dead = brokenWorker(100);
        EmbeddedWorker healthy = new EmbeddedWorker(queue, 200, 1);
        RecordingSink sink = new RecordingSink();
        byte[] bytes = new byte[Frame.MAX_PAYLOAD + 10];
        bytes[0] = 7;
        bytes[Frame.MAX_PAYLOAD + 9] = 42;
        FileChannel file = spooled(bytes);
        QueuedExchange ex = (QueuedExchange) queue.admission.submit(new Object(), get("/upload"),
                Unpooled.EMPTY_BUFFER, file, sink);
        assertTrue(ex.ticket.link() == dead.link);
        dead.channel.runPendingTasks(); // REQUEST and BODY writes fail (EPIPE); the link closes
        assertFalse(dead.channel.isActive());
        assertTrue(file.isOpen(), "the spool file is kept for the next link");
        List<Frame> frames = healthy.sent();
        assertEquals(List.of(FrameType.REQUEST, FrameType.BODY, FrameType.BODY), types(frames));
        assertEquals(7, frames.get(1).payload().getByte(frames.get(1).payload().readerIndex()),
                "read again from position 0");
        assertEquals(10, frames.get(2).payload().readableBytes());
        assertEquals(42, frames.get(2).payload().getByte(frames.get(2).payload().readerIndex() + 9));
        assertTrue(frames.get(2).endStream());
        frames.forEach(Frame::release);
        assertFalse(file.isOpen(), "closed once the next link delivered the request and its body");
        healthy.respond("stored");
        assertEquals(List.of("head 200 [content-type=text/plain]", "body end"), sink.events);
        assertEquals("stored", sink.bodyText());
    }

    @Test
    void requestThatKeepsMeetingDeadLinksIsAnswered502AfterMaxDispatches() {
        assertEquals(3, Dispatcher.MAX_DISPATCHES);
        EmbeddedWorker a = brokenWorker(100);
        EmbeddedWorker b = brokenWorker(200);
        EmbeddedWorker c = brokenWorker(300);
        RecordingSink sink = new RecordingSink();
        submit(new Object(), "/doomed", sink);
        a.channel.runPendingTasks();
        assertEquals(List.of(), sink.events, "first dead link: dispatched again");
        b.channel.runPendingTasks();
        assertEquals(List.of(), sink.events, "second dead link: dispatched again");
        c.channel.runPendingTasks();
        assertEquals(List.of("fail 502 headSent=false"), sink.events, "third dead link: answered, never looping");
        QueueSnapshot after = dispatcher.snapshot();
        assertEquals(0, after.live());
        assertEquals(0, after.depth());
        assertEquals(0, after.busy());
    }

    @Test
    void queueTimeOfARedispatchedRequestRunsToTheDispatchThatDeliveredItAndIsRecordedOnce() {
        EmbeddedWorker dying = new EmbeddedWorker(queue, 100, 0);
        EmbeddedWorker healthy = new EmbeddedWorker(queue, 200, 1);
        QueuedExchange ex = (QueuedExchange) submit(new Object(), "/late", new RecordingSink());
        queue.advance(7_000_000L); // lost on the dead link
        dying.channel.pipeline().close();
        dying.channel.runPendingTasks();
        queue.advance(2_000_000L); // after the second dispatch: not queue time
        List<Frame> frames = healthy.sent();
        assertEquals(7_000_000L, ex.dispatchedNanos() - ex.runnableNanos,
                "queue time includes the time lost on the dead link");
        assertEquals(ex.dispatchedNanos(), dev.pumaplus.wire.Request.decode(frames.get(0).payload()).dispatchedNanos(),
                "the worker gets the T3 of the dispatch that delivered it");
        frames.forEach(Frame::release);
        QueueMetrics metrics = dispatcher.metrics();
        metrics.tick(System.nanoTime(), queue.admission.submitted());
        assertEquals(1, (long) metrics.queue.readCumulative(Histogram::getTotalCount), "one sample per request");
        assertEquals(7_000_000L, (long) metrics.queue.readCumulative(Histogram::getMaxValue), 70_000L);
    }

    @Test
    void redispatchedRequestKeepsItsPlaceAheadOfItsConnectionsLaterRequests() {
        EmbeddedWorker healthy = new EmbeddedWorker(queue, 200, 1);
        EmbeddedWorker dying = new EmbeddedWorker(queue, 100, 0);
        submit(new Object(), "/busy", new RecordingSink()); // healthy (first idle)
        Object connection = new Object();
        submit(connection, "/a", new RecordingSink()); // dying
        submit(connection, "/b", new RecordingSink()); // waits
        submit(connection, "/c", new RecordingSink()); // held behind /b
        assertEquals(2, dispatcher.snapshot().depth());
        dying.channel.pipeline().close();
        dying.channel.runPendingTasks();
        assertEquals(3, dispatcher.snapshot().depth(), "/a waits again, /b and /c are held behind it");
        assertEquals("/busy", healthy.takeRequestPath());
        List<String> order = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            healthy.respond("ok");
            order.add(healthy.takeRequestPath());
        }
        assertEquals(List.of("/a", "/b", "/c"), order);
        healthy.respond("ok");
        assertEquals(0, dispatcher.snapshot().depth());
        assertEquals(0, dispatcher.snapshot().busy());
    }

    private static List<Integer> types(List<Frame> frames) {
        return frames.stream().map(Frame::type).toList();
    }

    // --- the hot-queue watch ------------------------------------------------------------------------------

    /** A timer that records what it is asked to schedule and runs it only when the test says so. */
    private static final class StepTimer extends ScheduledThreadPoolExecutor {
        final List<Long> delays = new ArrayList<>();
        private Runnable pending;

        StepTimer() {
            super(1);
        }

        @Override
        public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
            assertNull(pending, "one check pending at a time");
            delays.add(unit.toNanos(delay));
            pending = command;
            return null;
        }

        boolean hasPending() {
            return pending != null;
        }

        void runPending() {
            Runnable r = pending;
            pending = null;
            r.run();
        }
    }

    private static final long THRESHOLD = 50_000_000L;

    @Test
    void theHotQueueWatchSchedulesNothingWhileNoRequestWaits() {
        StepTimer timer = new StepTimer();
        int[] calls = {0};
        dispatcher.watchHot(THRESHOLD, timer, () -> calls[0]++);
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        for (int i = 0; i < 3; i++) {
            submit(new Object(), "/at-once", new RecordingSink());
            worker.takeRequestPath();
            worker.respond("ok");
        }
        assertEquals(List.of(), timer.delays, "requests that find an idle link arm nothing");
        assertEquals(0, dispatcher.oldestWaitNanos());
        timer.shutdown();
    }

    @Test
    void theWatchCallsOnceTheOldestRequestHasWaitedTheThresholdWithEverySlotBusyAndStopsWhenTheQueueEmpties() {
        StepTimer timer = new StepTimer();
        int[] calls = {0};
        dispatcher.watchHot(THRESHOLD, timer, () -> calls[0]++);
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        submit(new Object(), "/busy", new RecordingSink());
        worker.takeRequestPath();
        submit(new Object(), "/waits-1", new RecordingSink());
        queue.advance(20_000_000L);
        submit(new Object(), "/waits-2", new RecordingSink());
        assertEquals(List.of(THRESHOLD), timer.delays, "one check, for when the first to wait reaches 50 ms");
        assertEquals(20_000_000L, dispatcher.oldestWaitNanos());

        queue.advance(30_000_000L);
        timer.runPending();
        assertEquals(1, calls[0], "50 ms waited, the one slot busy");
        assertEquals(THRESHOLD, timer.delays.get(1), "at most once per threshold while it lasts");

        worker.respond("ok"); // /waits-1 runs; /waits-2 has waited 30 ms
        worker.takeRequestPath();
        timer.runPending();
        assertEquals(1, calls[0], "the oldest now waiting is younger than the threshold");
        assertEquals(20_000_000L, timer.delays.get(2), "checked again when it reaches it");

        queue.advance(20_000_000L);
        timer.runPending();
        assertEquals(2, calls[0]);
        worker.respond("ok");
        worker.takeRequestPath();
        timer.runPending();
        assertFalse(timer.hasPending(), "nothing waits: no check scheduled");
        assertEquals(2, calls[0]);
        worker.respond("ok");

        submit(new Object(), "/idle-again", new RecordingSink());
        worker.takeRequestPath();
        worker.respond("ok");
        assertFalse(timer.hasPending());
        dispatcher.watchHot(0, null, null);
        timer.shutdown();
    }

    @Test
    void aWatchSetWhileRequestsWaitChecksThemAndAStoppedWatchCallsNoMore() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        submit(new Object(), "/busy", new RecordingSink());
        worker.takeRequestPath();
        submit(new Object(), "/waits", new RecordingSink());
        queue.advance(80_000_000L);
        StepTimer timer = new StepTimer();
        int[] calls = {0};
        dispatcher.watchHot(THRESHOLD, timer, () -> calls[0]++);
        assertEquals(List.of(0L), timer.delays, "the waiting request is past the threshold already");
        dispatcher.watchHot(0, null, null);
        timer.runPending();
        assertEquals(0, calls[0]);
        assertFalse(timer.hasPending());
        worker.respond("ok");
        worker.takeRequestPath();
        worker.respond("ok");
        timer.shutdown();
    }

    /**
     * Under a limit of 10, one fiber slot per path, each path's request submitted and running for 10 ms:
     * the slot each runs on, by path.
     */
    private Map<String, EmbeddedWorker> runningTenMsUnderALimitOfTen(String... paths) {
        dispatcher.concurrencyLimit(10);
        List<EmbeddedWorker> fibers = new ArrayList<>();
        for (int i = 0; i < paths.length; i++) {
            fibers.add(new EmbeddedWorker(queue, 100, 0));
        }
        for (String path : paths) {
            submit(new Object(), path, new RecordingSink());
        }
        queue.advance(10_000_000L);
        return running(fibers);
    }

    /** The paths of the requests sent to {@code workers} since the last look, each with its worker. */
    private static Map<String, EmbeddedWorker> running(List<EmbeddedWorker> workers) {
        Map<String, EmbeddedWorker> sent = new java.util.TreeMap<>();
        for (EmbeddedWorker w : workers) {
            String path = w.takeRequestPath();
            if (path != null) {
                sent.put(path, w);
            }
        }
        return sent;
    }

    @Test
    void underAConcurrencyLimitRequestsWaitInTheQueueWhileIdleFiberSlotsExist() {
        dispatcher.concurrencyLimit(2);
        List<EmbeddedWorker> fibers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            fibers.add(new EmbeddedWorker(queue, 100, 0));
        }
        for (String path : List.of("/a", "/b", "/c", "/d")) {
            submit(new Object(), path, new RecordingSink());
        }
        QueueSnapshot held = dispatcher.snapshot();
        assertEquals(2, held.busy(), "two run: the limit");
        assertEquals(2, held.depth(), "two wait although two slots idle");
        assertEquals(4, held.live());
        assertEquals(2, held.capacity(), "W_pred divides by what may run, not by the live slots");
        assertTrue(dispatcher.wouldWait(), "a request arriving now waits (and may be shed)");
        assertEquals(2, dispatcher.capacityNow());
        Map<String, EmbeddedWorker> first = running(fibers);
        assertEquals(List.of("/a", "/b"), List.copyOf(first.keySet()), "the oldest two run");

        first.get("/a").respond("ok");
        assertEquals(List.of("/c"), List.copyOf(running(fibers).keySet()),
                "a finished request makes room for the oldest waiting one");
        assertEquals(2, dispatcher.snapshot().busy());
        assertEquals(1, dispatcher.snapshot().depth());

        assertTrue(dispatcher.adjustLimit(3));
        assertEquals(List.of("/d"), List.copyOf(running(fibers).keySet()), "a raised limit dispatches at once");
        assertEquals(0, dispatcher.snapshot().depth());
        assertEquals(3, dispatcher.snapshot().limit());

        dispatcher.concurrencyLimit(Dispatcher.UNLIMITED);
        assertFalse(dispatcher.snapshot().limited());
        assertFalse(dispatcher.adjustLimit(1), "without a limit in force the controller's limit changes nothing");
        assertFalse(dispatcher.snapshot().limited());
    }

    @Test
    void theLimitsWindowCountsFinishedRequestsTheirSlotTimeAndTheMostRunningAtOnce() {
        for (EmbeddedWorker w : runningTenMsUnderALimitOfTen("/a", "/b", "/c").values()) {
            w.respond("ok");
        }
        LimitWindow w = dispatcher.takeLimitWindow();
        assertEquals(3, w.completed());
        assertEquals(30_000_000L, w.slotNanos(), "three slot times of 10 ms");
        assertEquals(3, w.peakBusy());
        assertEquals(10, w.limit());
        LimitWindow next = dispatcher.takeLimitWindow();
        assertEquals(0, next.completed(), "a window begins where the last one was taken");
        assertEquals(0, next.peakBusy(), "its peak starts at what runs now");
    }

    @Test
    void theLimitsWindowLeavesOutTheTimeARequestWaitedForItsWorkersThread() {
        Map<String, EmbeddedWorker> sent = runningTenMsUnderALimitOfTen("/busy-core", "/unmeasured");
        sent.get("/busy-core").respond("ok", 4_000_000L);
        sent.get("/unmeasured").respond("ok", -1);
        LimitWindow w = dispatcher.takeLimitWindow();
        assertEquals(2, w.completed());
        assertEquals(16_000_000L, w.slotNanos(),
                "10 ms less the 4 ms its fiber waited for the thread, and 10 ms where no wait was measured");
        assertEquals(4_000_000L, w.threadWaitNanos(), "the wait left out is kept beside the slot times");
    }

    @Test
    void withThreadSlotsNoLimitIsInForceAndNoWindowIsKept() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        submit(new Object(), "/t", new RecordingSink());
        worker.takeRequestPath();
        worker.respond("ok");
        assertFalse(dispatcher.snapshot().limited());
        assertFalse(dispatcher.adjustLimit(1));
        LimitWindow w = dispatcher.takeLimitWindow();
        assertEquals(Dispatcher.UNLIMITED, w.limit());
        assertEquals(0, w.completed());
        assertFalse(dispatcher.wouldWait(), "an idle slot and nothing waiting: a request runs at once");
    }
}
