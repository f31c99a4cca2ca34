/*
 * Claims about the request timing aggregate (the measure step beside the request path): queue time is
 * exactly T3 − T2b, sliding windows roll off old data, λ is submits per second, the Little's-law
 * prediction follows its formula, and failed requests are counted but not timed.
 */
package dev.pumaplus.host.queue;

import org.HdrHistogram.Histogram;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pumaplus.spi.Exchange;
import dev.pumaplus.spi.RequestHead;
import dev.pumaplus.wire.Frame;
import dev.pumaplus.wire.FrameType;
import dev.pumaplus.wire.Request;
import dev.pumaplus.wire.ResponseHead;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import dev.pumaplus.host.measure.QueueMetrics;

@Timeout(15)
class QueueMetricsTest {

    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000_000_000L;

    private final QueueFixture queue = new QueueFixture();
    private final Dispatcher dispatcher = queue.dispatcher;

    @AfterEach
    void releaseBuffers() {
        queue.releaseAll();
    }

    /** Ticks {@code metrics} {@code n} times, one second apart, with no new submits. */
    private static long tick(QueueMetrics metrics, long now, int n) {
        for (int i = 0; i < n; i++) {
            now += SECOND;
            metrics.tick(now, 0);
        }
        return now;
    }

    @Test
    void queueTimeIsDispatchMinusRunnableExactlyAndTheWorkerIsToldTheSameTimes() {
        Exchange ex = queue.admission.submit(new Object(), DispatcherTest.get("/waits"), Unpooled.EMPTY_BUFFER, null,
                new RecordingSink());
        queue.advance(30 * MS);
        long atDispatch = queue.clock.nanoTime();
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        QueuedExchange q = (QueuedExchange) ex;
        List<Frame> frames = worker.sent();
        Request request = Request.decode(frames.get(0).payload());
        frames.forEach(Frame::release);

        assertEquals(q.runnableNanos, request.runnableNanos(), "T2b on the wire");
        assertEquals(q.dispatchedNanos(), request.dispatchedNanos(), "T3 on the wire");
        assertEquals(2, request.headersParsedNanos(), "T2 from the RequestHead");
        assertEquals(atDispatch, q.dispatchedNanos(), "T3 is read when a slot takes the request");
        long queueNanos = q.dispatchedNanos() - q.runnableNanos;
        assertEquals(30 * MS, queueNanos, "queue time is exactly the 30 ms wait for a slot");

        QueueMetrics metrics = dispatcher.metrics();
        metrics.tick(System.nanoTime(), queue.admission.submitted());
        QueueMetrics.Percentiles p = metrics.window(1).queue();
        assertEquals(1, p.count());
        assertEquals(queueNanos, p.max(), queueNanos / 100.0, "recorded within the histogram's 1%");
    }

    @Test
    void serviceIsAppTimeLessBodyReadAndTotalIsFirstByteToLastByteSent() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        RecordingSink sink = new RecordingSink();
        QueuedExchange ex = (QueuedExchange) queue.admission.submit(new Object(), DispatcherTest.get("/svc"),
                Unpooled.EMPTY_BUFFER, null, sink);
        worker.discardSent();
        long t4 = 1_000 * MS;
        worker.channel.writeInbound(new ResponseHead(200, t4, t4 + 50 * MS, 20 * MS, List.of())
                .toFrame(ByteBufAllocator.DEFAULT, true));
        worker.channel.runPendingTasks();
        ex.responseSent(1 + 80 * MS); // T1 of DispatcherTest.get is 1
        QueueMetrics metrics = dispatcher.metrics();
        metrics.tick(System.nanoTime(), queue.admission.submitted());
        QueueMetrics.Window w = metrics.window(1);
        assertEquals(30 * MS, w.service().max(), 0.3 * MS, "T5 − T4 − body read");
        assertEquals(80 * MS, w.total().max(), 0.8 * MS, "T6 − T1");
        assertEquals(1, metrics.statusCount(2));
    }

    /** Serves one request whose worker reports {@code service} ns of service and GVL wait {@code gvl} (-1: none). */
    private void serveWithGvlWait(long service, long gvl) {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        QueuedExchange ex = (QueuedExchange) queue.admission.submit(new Object(), DispatcherTest.get("/gvl"),
                Unpooled.EMPTY_BUFFER, null, new RecordingSink());
        worker.discardSent();
        long t4 = 1_000 * MS;
        worker.channel.writeInbound(new ResponseHead(200, t4, t4 + service, 0, List.of(), gvl)
                .toFrame(ByteBufAllocator.DEFAULT, true));
        worker.channel.runPendingTasks();
        ex.responseSent(1 + service);
    }

    @Test
    void gvlWaitIsRecordedPerRequestAndItsRatioIsWaitOverServiceOfTheRequestsThatMeasuredIt() {
        serveWithGvlWait(40 * MS, 20 * MS);
        serveWithGvlWait(60 * MS, 0);
        serveWithGvlWait(50 * MS, ResponseHead.GVL_WAIT_UNKNOWN); // a Ruby 3.1 worker of the same host
        QueueMetrics metrics = dispatcher.metrics();
        metrics.tick(System.nanoTime(), queue.admission.submitted());
        QueueMetrics.Window w = metrics.window(1);
        assertEquals(3, w.service().count());
        assertEquals(2, w.gvlWait().count(), "only the heads with GVL_WAIT");
        assertEquals(20 * MS, w.gvlWait().max(), 0.2 * MS);
        assertEquals(20.0 / 100, w.gvlWaitRatio(), 0.01, "(20 + 0) ms of GVL wait in (40 + 60) ms of service");
    }

    @Test
    void gvlWaitIsUnknownNotZeroWhenNoWorkerMeasuresIt() {
        serveWithGvlWait(50 * MS, ResponseHead.GVL_WAIT_UNKNOWN);
        QueueMetrics metrics = dispatcher.metrics();
        metrics.tick(System.nanoTime(), queue.admission.submitted());
        QueueMetrics.Window w = metrics.window(1);
        assertEquals(0, w.gvlWait().count());
        assertTrue(Double.isNaN(w.gvlWaitRatio()), "unknown: " + w.gvlWaitRatio());
        assertTrue(Double.isNaN(metrics.window(10).gvlWaitRatio()));
    }

    @Test
    void bodyWaitIsRunnableMinusHeadersParsedPlusTheWorkersBodyRead() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        long t2 = queue.clock.nanoTime() - 5 * MS;
        RequestHead head = new RequestHead("POST", "/upload", "HTTP/1.1", "http",
                new InetSocketAddress("127.0.0.1", 9292), new InetSocketAddress("127.0.0.1", 50000), List.of(),
                t2 - MS, t2);
        QueuedExchange ex = (QueuedExchange) queue.admission.submit(new Object(), head, Unpooled.EMPTY_BUFFER, null,
                new RecordingSink());
        QueueMetrics metrics = dispatcher.metrics();
        assertEquals(0, (long) metrics.bodyWait.readCumulative(Histogram::getTotalCount), "not before the worker has the body");
        worker.discardSent();
        long t4 = System.nanoTime();
        worker.channel.writeInbound(new ResponseHead(200, t4, t4 + 30 * MS, 20 * MS, List.of())
                .toFrame(ByteBufAllocator.DEFAULT, true));
        worker.channel.runPendingTasks();
        metrics.tick(System.nanoTime(), queue.admission.submitted());
        long expected = ex.runnableNanos - t2 + 20 * MS;
        assertEquals(1, (long) metrics.bodyWait.readCumulative(Histogram::getTotalCount));
        assertEquals(expected, (long) metrics.bodyWait.readCumulative(Histogram::getMaxValue), 0.01 * expected,
                "T2b − T2 + body read");
    }

    @Test
    void failedRequestIsCountedButNotRecordedAsServiceOrTotal() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        RecordingSink sink = new RecordingSink();
        QueuedExchange ex = (QueuedExchange) queue.admission.submit(new Object(), DispatcherTest.get("/dies"),
                Unpooled.EMPTY_BUFFER, null, sink);
        worker.discardSent();
        worker.channel.writeInbound(Frame.of(FrameType.RESPONSE_ABORT, false,
                Unpooled.copiedBuffer("boom", java.nio.charset.StandardCharsets.US_ASCII)));
        worker.channel.runPendingTasks();
        ex.responseSent(System.nanoTime());
        QueueMetrics metrics = dispatcher.metrics();
        metrics.tick(System.nanoTime(), queue.admission.submitted());
        QueueMetrics.Window w = metrics.window(1);
        assertEquals(1, w.queue().count(), "it did wait and was dispatched");
        assertEquals(0, w.service().count());
        assertEquals(0, w.total().count());
        assertEquals(1, metrics.statusCount(5), "the 502 is counted");
        assertTrue(ex.response.failed());
    }

    @Test
    void slidingWindowsRollOffDataOlderThanTheirLength() {
        QueueMetrics metrics = new QueueMetrics();
        metrics.queue.record(5 * MS);
        long now = tick(metrics, 0, 1);
        assertEquals(1, metrics.window(1).queue().count());
        assertEquals(5 * MS, metrics.window(1).queue().p50(), 0.05 * MS);

        now = tick(metrics, now, 1);
        assertEquals(0, metrics.window(1).queue().count(), "the 1 s window moved past it");
        assertEquals(1, metrics.window(10).queue().count());

        now = tick(metrics, now, 9); // its slot is now 11 s old
        assertEquals(0, metrics.window(10).queue().count(), "rolled off the 10 s window");
        assertEquals(1, metrics.window(60).queue().count());

        tick(metrics, now, 50); // 61 s old: its slot was reused
        assertEquals(0, metrics.window(60).queue().count(), "rolled off the 60 s window");
        assertEquals(1, (long) metrics.queue.readCumulative(Histogram::getTotalCount), "Prometheus' cumulative keeps it");
    }

    @Test
    void secondsRollWithoutATimerWhenTheNextSubmitOrReaderComesAfterThem() throws Exception {
        QueueMetrics metrics = new QueueMetrics();
        AtomicLong submitted = new AtomicLong();
        long started = System.nanoTime();
        metrics.start(submitted::get);
        metrics.arrived();
        submitted.incrementAndGet();
        metrics.queue.record(5 * MS);
        Thread.sleep(2_300); // two whole seconds and a bit: nothing rolls them yet

        QueueMetrics.Window window = metrics.window(10);
        long ended = (System.nanoTime() - started) / SECOND; // whole seconds by now, at least those the grid saw
        assertTrue(window.slots() >= 2 && window.slots() <= ended,
                "a reader rolls the seconds that ended: " + window.slots() + " of " + ended);
        assertEquals(1, window.queue().count(), "the value recorded in the first of them");
        assertEquals(0, metrics.window(1).queue().count(), "the newest second held nothing");
        assertEquals(1.0 / window.slots(), window.arrivalsPerSecond(), 0.01, "one submit over those seconds");

        int before = window.slots();
        Thread.sleep(1_000);
        metrics.queue.record(7 * MS);
        metrics.arrived(); // at least one more second ended: this submit rolls it before it counts
        assertTrue(metrics.window(10).slots() > before);
        assertEquals(2, metrics.window(10).queue().count());
    }

    @Test
    void windowPercentilesCombineItsSlots() {
        QueueMetrics metrics = new QueueMetrics();
        long now = 0;
        for (int second = 1; second <= 10; second++) {
            for (int i = 0; i < 10; i++) {
                metrics.queue.record(second * MS); // second s: ten samples of s ms
            }
            now = tick(metrics, now, 1);
        }
        QueueMetrics.Percentiles p = metrics.window(10).queue();
        assertEquals(100, p.count());
        assertEquals(5 * MS, p.p50(), 0.05 * MS);
        assertEquals(9 * MS, p.p90(), 0.09 * MS);
        assertEquals(10 * MS, p.max(), 0.1 * MS);
        assertEquals(10 * MS, metrics.window(1).queue().p50(), 0.1 * MS, "the newest second only");
    }

    @Test
    void arrivalRateIsSubmitsPerSecondOverTheWindowsMeasuredLength() {
        QueueMetrics metrics = new QueueMetrics();
        long start = System.nanoTime(); // the first slot runs from construction, a moment before
        metrics.tick(start + SECOND, 0);
        metrics.tick(start + 2 * SECOND, 50); // 50 submits in one second
        metrics.tick(start + 4 * SECOND, 90); // 40 more in two seconds (a late tick)
        assertEquals(20.0, metrics.window(1).arrivalsPerSecond(), 1e-9);
        assertEquals(90 / 4.0, metrics.window(10).arrivalsPerSecond(), 0.01,
                "a young window divides by the time it covers, not by 10 s");
    }

    @Test
    void predictedWaitIsZeroWithAnIdleSlotAndOtherwiseLPlusOneTimesSlotTimeOverLiveSlots() {
        double s = 100 * MS;
        assertEquals(0, QueueMetrics.predictedWaitNanos(0, 3, 4, s), "an idle slot takes it at once");
        assertEquals(s / 4, QueueMetrics.predictedWaitNanos(0, 4, 4, s), 1e-6, "all busy, nobody waiting");
        assertEquals(6 * s / 4, QueueMetrics.predictedWaitNanos(5, 4, 4, s), 1e-6, "(L+1)·S/c with L = 5");
        assertEquals(Double.POSITIVE_INFINITY, QueueMetrics.predictedWaitNanos(3, 0, 0, s), "no slot at all");
        assertEquals(0.5, QueueMetrics.utilization(20, 100 * MS, 4), 1e-9, "ρ = λ·S/c = 20·0.1/4");
    }

    @Test
    void slotTimeForThePredictionFallsBackFromTenSecondsToSixtyToSinceStart() {
        QueueMetrics metrics = new QueueMetrics();
        assertTrue(Double.isNaN(metrics.meanSlotNanos()), "unknown before any request finished");
        metrics.slot.record(200 * MS);
        long now = tick(metrics, 0, 1);
        metrics.slot.record(100 * MS);
        now = tick(metrics, now, 1);
        assertEquals(150 * MS, metrics.meanSlotNanos(), 1.5 * MS, "mean over the last 10 s");
        now = tick(metrics, now, 10);
        assertEquals(150 * MS, metrics.meanSlotNanos(), 1.5 * MS, "10 s empty: the 60 s window");
        tick(metrics, now, 60);
        assertEquals(150 * MS, metrics.meanSlotNanos(), 1.5 * MS, "60 s empty: everything since start");
        assertFalse(Double.isNaN(metrics.meanSlotNanos()));
    }

    @Test
    void slotTimeRunsFromDispatchUntilTheLinkIsIdleAgain() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        queue.admission.submit(new Object(), DispatcherTest.get("/slot"), Unpooled.EMPTY_BUFFER, null, new RecordingSink());
        worker.discardSent();
        queue.advance(20 * MS);
        worker.respond("done");
        QueueMetrics metrics = dispatcher.metrics();
        metrics.tick(System.nanoTime(), queue.admission.submitted());
        assertEquals(20 * MS, metrics.meanSlotNanos(), 0.2 * MS, "the slot was held for the 20 ms the app ran");
        assertTrue(metrics.window(1).arrivalsPerSecond() > 0, "the submit was counted as an arrival");
    }

    @Test
    void serverTimingHeaderIsAddedOnlyWhenSwitchedOn() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        RecordingSink off = new RecordingSink();
        queue.admission.submit(new Object(), DispatcherTest.get("/off"), Unpooled.EMPTY_BUFFER, null, off);
        worker.discardSent();
        worker.respond("x");
        assertFalse(off.events.get(0).contains("Server-Timing"), off.events.get(0));

        queue.reporting.serverTiming(true);
        RecordingSink on = new RecordingSink();
        queue.admission.submit(new Object(), DispatcherTest.get("/on"), Unpooled.EMPTY_BUFFER, null, on);
        worker.discardSent();
        worker.channel.writeInbound(new ResponseHead(200, 10 * MS, 10 * MS + 1_234_567, 0, List.of())
                .toFrame(ByteBufAllocator.DEFAULT, true));
        worker.channel.runPendingTasks();
        String head = on.events.get(0);
        assertTrue(head.matches(".*Server-Timing=queue;dur=\\d+\\.\\d{3}, app;dur=1\\.235.*"), head);
    }

    @Test
    void serverTimingValueIsMillisecondsWithThreeDecimals() {
        assertEquals("queue;dur=0.012, app;dur=100.000", ServerTimingHeader.value(12_345, 100 * MS));
        assertEquals("queue;dur=0.000, app;dur=0.001", ServerTimingHeader.value(-5, 600));
        assertEquals("queue;dur=1500.250, app;dur=0.100", ServerTimingHeader.value(1_500_250_000L, 100_000));
    }

    @Test
    void requestLogLineHasEveryTimingPointInTheDocumentedShape() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        QueuedExchange ex = (QueuedExchange) queue.admission.submit(new Object(), DispatcherTest.get("/log?q=1"),
                Unpooled.EMPTY_BUFFER, null, new RecordingSink());
        worker.discardSent();
        worker.channel.writeInbound(new ResponseHead(201, 40, 50, 7, List.of(Map.entry("a", "b")))
                .toFrame(ByteBufAllocator.DEFAULT, true));
        worker.channel.runPendingTasks();
        String line = RequestLog.line(ex, 99);
        assertEquals("puma-plus: request id=" + ex.requestId + " GET /log 201 t1=1 t2=2 t2b=" + ex.runnableNanos
                + " t3=" + ex.dispatchedNanos() + " t4=40 t5=50 t6=99 body_read=7", line);
    }
}
