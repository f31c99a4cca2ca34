/*
 * Claims about the admission step in front of the queue (docs/CONTROL.md, "Shedding", "Health checks"): a
 * request predicted to wait past the limit is answered 503 with Retry-After at submit, never queued; health
 * checks are never shed and never wait behind app requests. Real WorkerLinks over embedded channels.
 */
package dev.pumaplus.host.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pumaplus.wire.Frame;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class AdmissionTest {

    private static final long MS = 1_000_000;
    private final QueueFixture queue = new QueueFixture();
    private final Dispatcher dispatcher = queue.dispatcher;

    @AfterEach
    void releaseBuffers() {
        queue.releaseAll();
    }

    /** Makes S (the mean slot time the prediction uses) {@code ms}, as a second of traffic would. */
    private void slotTime(long ms) {
        dispatcher.metrics().slot.record(ms * MS);
        dispatcher.metrics().tick(System.nanoTime(), queue.admission.submitted());
    }

    private RecordingSink submit(String target) {
        RecordingSink sink = new RecordingSink();
        queue.admission.submit(new Object(), DispatcherTest.get(target), Unpooled.EMPTY_BUFFER, null, sink);
        return sink;
    }

    @Test
    void requestPredictedToWaitPastTheLimitIsAnswered503WithRetryAfterAndNeverQueued() {
        new EmbeddedWorker(queue, 100, 0).discardSent();
        slotTime(500);
        queue.admission.shedding(1100.0 * MS);
        submit("/running");                       // takes the one slot
        RecordingSink waits = submit("/a");       // W_pred = 1 · 500 / 1 = 500 ms
        RecordingSink underLimit = submit("/b");     // 2 · 500 = 1000 ms: under the limit
        RecordingSink shed = submit("/c");        // 3 · 500 = 1500 ms > 1100 ms
        assertEquals(0, waits.status);
        assertEquals(0, underLimit.status);
        assertEquals(503, shed.status);
        assertTrue(shed.events.get(0).contains("Retry-After=2"), shed.events.toString());
        assertTrue(shed.bodyText().matches("(?s)server busy: predicted wait 150\\d ms exceeds 1100 ms\\n"), shed.bodyText());
        QueueSnapshot s = dispatcher.snapshot();
        assertEquals(1, queue.metrics.shed());
        assertEquals(2, s.depth());
        assertEquals(1, dispatcher.metrics().statusCount(5));
    }

    @Test
    void underAConcurrencyLimitTheWaitIsPredictedBehindTheLimitNotTheIdleFiberSlots() {
        dispatcher.concurrencyLimit(1);
        for (int i = 0; i < 4; i++) {
            new EmbeddedWorker(queue, 100, 0).discardSent();
        }
        slotTime(500);
        queue.admission.shedding(1100.0 * MS);
        submit("/running");                       // the one request the limit lets run
        RecordingSink waits = submit("/a");       // W_pred = 1 · 500 / 1 = 500 ms: three fibers idle, it waits
        RecordingSink underLimit = submit("/b");  // 2 · 500 = 1000 ms
        RecordingSink shed = submit("/c");        // 3 · 500 = 1500 ms > 1100 ms (with c = 4 live: 375 ms)
        assertEquals(0, waits.status);
        assertEquals(0, underLimit.status);
        assertEquals(503, shed.status);
        assertTrue(shed.events.get(0).contains("Retry-After=2"), shed.events.toString());
        assertEquals(2, dispatcher.snapshot().depth());
    }

    @Test
    void requestAfterTheDrainIsRefusedAsShuttingDownNotShed() {
        new EmbeddedWorker(queue, 100, 0).discardSent();
        slotTime(500);
        queue.admission.shedding(100.0 * MS);
        assertTrue(dispatcher.drain(0, Runnable::run));
        RecordingSink late = submit("/late");     // would wait 500 ms > 100 ms, but the host is stopping
        assertEquals(List.of("fail 503 headSent=false"), late.events);
        assertEquals(0, queue.metrics.shed());
    }

    @Test
    void nothingIsShedWhileNoSlotIsLiveOrTheSlotTimeIsUnknown() {
        queue.admission.shedding(1.0);
        RecordingSink beforeAnyWorker = submit("/boot");
        assertEquals(0, beforeAnyWorker.status, "queued: the workers are still dialling in");
        new EmbeddedWorker(queue, 100, 0).discardSent();
        RecordingSink unknownS = submit("/a");
        assertEquals(0, unknownS.status, "S unknown: no prediction, no shedding");
        assertEquals(0, queue.metrics.shed());
    }

    @Test
    void healthCheckJumpsTheQueueAndIsNeverShed() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        worker.discardSent();
        slotTime(500);
        queue.admission.shedding(400.0 * MS);
        queue.admission.healthCheck("/up", false);
        submit("/running");
        RecordingSink queued = submit("/a");      // 500 ms > 400 ms: shed
        assertEquals(503, queued.status);
        queue.admission.shedding(Double.POSITIVE_INFINITY);
        submit("/b");
        submit("/c");
        RecordingSink health = submit("/up?full=1");
        queue.admission.shedding(1.0);
        RecordingSink health2 = submit("/up");
        assertEquals(0, health.status, "queued, not shed");
        assertEquals(0, health2.status, "queued, not shed");
        worker.discardSent();
        worker.respond("done");
        List<Frame> next = worker.sent();
        assertEquals("/up", EmbeddedWorker.env(next, "PATH_INFO"), "the health checks go first");
        next.forEach(Frame::release);
    }

    @Test
    void hostAnsweredHealthCheckReportsLiveSlotsWithoutAWorker() {
        queue.admission.healthCheck("/health", true);
        RecordingSink none = submit("/health");
        assertEquals(503, none.status);
        assertTrue(none.bodyText().contains("\"status\":\"no live slot\""), none.bodyText());
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        worker.discardSent();
        submit("/busy");
        List<Frame> sent = new ArrayList<>(worker.sent());
        sent.forEach(Frame::release);
        RecordingSink ok = submit("/health");
        assertEquals(200, ok.status);
        assertTrue(ok.bodyText().contains("\"live_slots\":1,\"busy_slots\":1,\"queue_depth\":0"), ok.bodyText());
        assertTrue(worker.sent().isEmpty(), "never reaches a worker");
        RecordingSink other = submit("/healthz");
        assertEquals(0, other.status, "only the exact path (plus a query) is the health check");
    }
}
