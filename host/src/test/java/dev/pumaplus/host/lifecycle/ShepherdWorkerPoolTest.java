/*
 * Claims about the WorkerPool service the actuators drive: readiness read from the dispatcher's live links
 * (a process ready at `threads` links, extra slots counted beyond them), and counts passed on as desired
 * totals.
 */
package dev.pumaplus.host.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pumaplus.host.queue.Dispatcher;
import dev.pumaplus.host.queue.EmbeddedWorker;
import dev.pumaplus.host.queue.QueueFixture;
import dev.pumaplus.spi.Actuator;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class ShepherdWorkerPoolTest {

    private final QueueFixture queue = new QueueFixture();
    private final Dispatcher dispatcher = queue.dispatcher;
    private final List<Integer> workers = new ArrayList<>();
    private final List<Integer> extra = new ArrayList<>();
    private final ShepherdWorkerPool pool = new ShepherdWorkerPool(dispatcher, workers::add, extra::add, 2, 2);

    @AfterEach
    void release() {
        queue.releaseAll();
    }

    @Test
    void extraSlotsAreTheLinksBeyondThreadsSummedOverProcesses() {
        new EmbeddedWorker(queue, 100, 0);
        new EmbeddedWorker(queue, 100, 0);
        new EmbeddedWorker(queue, 100, 0); // one extra in worker 0
        new EmbeddedWorker(queue, 200, 1); // worker 1 still dialling in: not ready, no extra
        assertEquals(1, pool.readyExtraSlots());
        assertEquals(List.of(100L), pool.readyWorkerPids(), "a process with an extra slot is still ready");
        new EmbeddedWorker(queue, 200, 1);
        new EmbeddedWorker(queue, 200, 1);
        new EmbeddedWorker(queue, 200, 1);
        assertEquals(3, pool.readyExtraSlots());
    }

    @Test
    void desiredCountsArePassedOnAsTotalsNeverBelowTheirFloor() {
        pool.desiredExtraSlots(4);
        pool.desiredExtraSlots(-1);
        pool.desiredWorkers(0);
        assertEquals(List.of(4, 0), extra);
        assertEquals(List.of(1), workers);
    }

    @Test
    void theRactorActuatorMeasuresItsDeadTimeWhenTheSlotsDialInNotAtTheNextTick() throws Exception {
        Actuator ractor = pool.ractorSlots();
        new EmbeddedWorker(queue, 100, 0);
        new EmbeddedWorker(queue, 100, 0);
        long asked = System.nanoTime();
        ractor.add(1);
        assertEquals(List.of(1), extra);
        Thread.sleep(20);
        new EmbeddedWorker(queue, 100, 0); // the Ractor's link dials in
        long dialled = System.nanoTime() - asked;
        while (ractor.deadTimeNanos() == ExtraSlots.DEFAULT_DEAD_TIME_MS * 1_000_000) {
            Thread.sleep(1);
        }
        long measured = ractor.deadTimeNanos();
        assertTrue(measured >= 20_000_000 && measured < dialled + 200_000_000,
                "measured " + measured / 1e6 + " ms for a dial-in after " + dialled / 1e6 + " ms");
        assertEquals(1, ractor.readyUnits());
    }
}
