/*
 * Claims about the dashboard's snapshots: the queue and slot figures are the dispatcher's, W_pred is null
 * with no live slot, each decision the autoscaler keeps is sent once per stream (again from the start after a
 * swap), and restarts, worker deaths, retirements and policy swaps become events.
 */
package dev.pumaplus.host.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pumaplus.host.queue.Dispatcher;
import dev.pumaplus.host.queue.DispatcherTest;
import dev.pumaplus.host.queue.EmbeddedWorker;
import dev.pumaplus.host.queue.QueueFixture;
import dev.pumaplus.host.queue.RecordingSink;
import dev.pumaplus.spi.Autoscaler;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class DashboardFeedTest {

    private final QueueFixture queue = new QueueFixture();
    private final Dispatcher dispatcher = queue.dispatcher;

    @AfterEach
    void releaseBuffers() {
        queue.releaseAll();
    }

    /** An autoscaler whose decisions the test appends. */
    static final class KeptDecisions implements Autoscaler {
        final String policy;
        final List<TickDecision> kept = new ArrayList<>();

        KeptDecisions(String policy) {
            this.policy = policy;
        }

        void decide(String action, int delta, String reason) {
            kept.add(new TickDecision(kept.size(), 1_000L * kept.size(), policy, action, delta, 0, 1, "hot", reason));
        }

        @Override
        public String policyId() {
            return policy;
        }

        @Override
        public long ticks() {
            return kept.size();
        }

        @Override
        public String lastDecision() {
            return kept.isEmpty() ? null : kept.get(kept.size() - 1).reason();
        }

        @Override
        public List<TickDecision> decisionsAfter(long tick) {
            return kept.stream().filter(d -> d.tick() > tick).toList();
        }
    }

    private static List<String> kinds(JsonNode snapshot) {
        List<String> kinds = new ArrayList<>();
        snapshot.get("events").forEach(e -> kinds.add(e.get("kind").asText()));
        return kinds;
    }

    private static List<String> reasons(JsonNode snapshot) {
        List<String> reasons = new ArrayList<>();
        snapshot.get("decisions").forEach(d -> reasons.add(d.get("reason").asText()));
        return reasons;
    }

    @Test
    void withNoLiveSlotThePredictedWaitIsNullAndTheAutoscalerIsReportedOff() {
        JsonNode s = new DashboardFeed(dispatcher, List::of).next(5_000);
        assertEquals(5_000, s.get("t").asLong());
        assertTrue(s.get("queue").get("predicted_wait_ms").isNull(), s.toString());
        assertEquals(0, s.get("slots").get("live").asInt());
        assertTrue(s.get("autoscaler").isNull());
        assertEquals(List.of(), kinds(s), "the first snapshot is the baseline");
        assertTrue(s.get("memory").get("host_rss_bytes").asLong() > 0, "the host's own RSS from /proc/self/status");
    }

    @Test
    void slotsDepthAndWorkersAreTheDispatchersAndEachDecisionIsSentOnce() {
        EmbeddedWorker worker = new EmbeddedWorker(queue, 100, 0);
        for (int i = 0; i < 3; i++) {
            queue.admission.submit(new Object(), DispatcherTest.get("/" + i), Unpooled.EMPTY_BUFFER, null, new RecordingSink());
        }
        worker.discardSent();
        KeptDecisions autoscaler = new KeptDecisions("tiered/1");
        autoscaler.decide("add", 2, "W_pred over target");
        DashboardFeed feed = new DashboardFeed(dispatcher, () -> List.of(autoscaler));

        JsonNode first = feed.next(1_000);
        assertEquals(2, first.get("queue").get("depth").asInt());
        assertEquals(1, first.get("slots").get("busy").asInt());
        assertEquals(0, first.get("slots").get("idle").asInt());
        JsonNode w = first.get("workers").get(0);
        assertEquals(100, w.get("pid").asLong());
        assertEquals(1, w.get("generation").asLong());
        assertEquals(1, w.get("busy").asInt());
        assertTrue(w.get("rss_bytes").isNull(), "pid 100 is no process of this test: its RSS is unknown");
        assertEquals("tiered/1", first.get("autoscaler").get("policy").asText());
        assertEquals(List.of("W_pred over target"), reasons(first));
        assertEquals("add", first.get("decisions").get(0).get("action").asText());

        assertEquals(List.of(), reasons(feed.next(2_000)), "nothing new");
        autoscaler.decide("none", 0, "cooling down");
        autoscaler.decide("remove", -1, "idle for 10 ticks");
        assertEquals(List.of("cooling down", "idle for 10 ticks"), reasons(feed.next(3_000)));
    }

    @Test
    void aNewGenerationIsARestartAWorkerWhoseLinksDropIsADeathAndOneThatSaysGoawayRetires() {
        EmbeddedWorker old = new EmbeddedWorker(queue, 100, 0);
        EmbeddedWorker doomed = new EmbeddedWorker(queue, 200, 1);
        DashboardFeed feed = new DashboardFeed(dispatcher, List::of);
        feed.next(1_000);

        new EmbeddedWorker(queue, 300, 0, 2);
        JsonNode restarted = feed.next(2_000);
        assertEquals(List.of("restart", "worker_started"), kinds(restarted));
        assertEquals(2_000, restarted.get("events").get(0).get("t").asLong());

        doomed.channel.close(); // no GOAWAY: the process died
        doomed.channel.runPendingTasks();
        assertEquals(List.of("worker_died"), kinds(feed.next(3_000)));

        old.channel.writeInbound(new dev.pumaplus.wire.Goaway(0, "bye").toFrame(ByteBufAllocator.DEFAULT));
        old.channel.close();
        old.channel.runPendingTasks();
        assertEquals(List.of("worker_exited"), kinds(feed.next(4_000)));
        assertEquals(List.of(), kinds(feed.next(5_000)));
    }

    @Test
    void aSwappedAutoscalerIsAPolicySwapAndItsDecisionsAreFollowedFromItsFirstTick() {
        KeptDecisions before = new KeptDecisions("tiered/1");
        before.decide("none", 0, "old 0");
        before.decide("none", 0, "old 1");
        KeptDecisions after = new KeptDecisions("one-unit/1");
        after.decide("add", 1, "new 0");
        AtomicReference<List<Autoscaler>> running = new AtomicReference<>(List.of(before));
        DashboardFeed feed = new DashboardFeed(dispatcher, running::get);
        assertEquals(List.of("old 0", "old 1"), reasons(feed.next(1_000)));

        running.set(List.of()); // between the old bundle's stop and the new one's start
        assertEquals(List.of(), kinds(feed.next(2_000)));
        running.set(List.of(after));
        JsonNode swapped = feed.next(3_000);
        assertEquals(List.of("policy_swap"), kinds(swapped));
        assertEquals("tiered/1 → one-unit/1", swapped.get("events").get(0).get("text").asText());
        assertEquals(List.of("new 0"), reasons(swapped), "tick 0 of the new autoscaler is new, though old 0 was sent");
    }
}
