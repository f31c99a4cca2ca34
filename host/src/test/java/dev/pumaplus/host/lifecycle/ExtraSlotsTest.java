/*
 * Claims about the Ractor and thread actuators' shared bookkeeping against a recording WorkerPool: counts
 * as desired totals from 0, ready bounded by what was asked, dead time measured from readiness, the
 * thread's unknown gain.
 */
package dev.pumaplus.host.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pumaplus.spi.Actuator;
import dev.pumaplus.spi.CountedUnits;
import dev.pumaplus.spi.WorkerPool;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class ExtraSlotsTest {

    /** The host's side, recorded: the extra slot counts asked for, and how many have dialled in. */
    static final class RecordingPool implements WorkerPool {
        final List<Integer> asked = new ArrayList<>();
        int readyExtra;

        @Override
        public int threadsPerWorker() {
            return 5;
        }

        @Override
        public int initialWorkers() {
            return 2;
        }

        @Override
        public void desiredWorkers(int count) {
            throw new AssertionError("an extra-slot actuator never asks for processes");
        }

        @Override
        public List<Long> readyWorkerPids() {
            return List.of();
        }

        @Override
        public void desiredExtraSlots(int count) {
            asked.add(count);
        }

        @Override
        public int readyExtraSlots() {
            return readyExtra;
        }

        @Override
        public Actuator ractorSlots() {
            throw new AssertionError("not called: these claims make their actuators themselves");
        }

        @Override
        public Actuator threadSlots() {
            throw new AssertionError("not called: these claims make their actuators themselves");
        }

        @Override
        public Actuator countedActuator(CountedUnits units) {
            throw new AssertionError("not called: these claims make their actuators themselves");
        }
    }

    @Test
    void addAsksForTheNewTotalOfExtraSlotsAndMeasuresTheDeadTimeUntilTheyDialIn() {
        RecordingPool pool = new RecordingPool();
        AtomicLong now = new AtomicLong(1_000);
        Actuator ractor = new CountedActuator(new ExtraSlots("ractor", true, pool), now::get, false);
        assertEquals(0, ractor.units(), "a generation starts without extra slots");
        assertEquals(1, ractor.slotsPerUnit());
        ractor.add(3);
        ractor.add(2);
        assertEquals(List.of(3, 5), pool.asked);
        pool.readyExtra = 4;
        assertEquals(4, ractor.readyUnits());
        assertEquals(50_000_000, ractor.deadTimeNanos(), "not complete: not measured");
        now.addAndGet(10_000_000);
        pool.readyExtra = 5;
        assertEquals(5, ractor.readyUnits());
        // the first measurement replaces the 50 ms default
        assertEquals(10_000_000, ractor.deadTimeNanos());
    }

    @Test
    void removeGoesDownToZeroAndSlotsStillDrainingAreNotReady() {
        RecordingPool pool = new RecordingPool();
        Actuator ractor = new CountedActuator(new ExtraSlots("ractor", true, pool), System::nanoTime, false);
        ractor.add(4);
        pool.readyExtra = 4;
        ractor.remove(9);
        assertEquals(List.of(4, 0), pool.asked);
        assertEquals(0, ractor.units());
        assertEquals(0, ractor.readyUnits(), "slots finishing their request are not capacity asked for");
    }

    @Test
    void theThreadActuatorReportsItsGainUnknownAndTheRactorActuatorKnown() {
        RecordingPool pool = new RecordingPool();
        Actuator thread = ExtraSlots.threads(pool);
        Actuator ractor = ExtraSlots.ractors(pool);
        assertEquals("thread", thread.kind());
        assertFalse(thread.gainKnown());
        assertEquals("ractor", ractor.kind());
        assertTrue(ractor.gainKnown());
        assertEquals(-1, ractor.memoryPerUnitBytes());
    }
}
