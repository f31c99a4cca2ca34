/*
 * Claims about the fork actuator's bookkeeping against a recording WorkerPool: counts, the settled gate's
 * inputs (units vs. ready), dead-time measurement from readiness, and never below one worker.
 */
package dev.pumaplus.actuator.fork;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pumaplus.spi.Actuator;
import dev.pumaplus.spi.WorkerPool;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class ForkActuatorTest {

    /** The host's side, recorded: what was asked for, and which pids have dialled in. */
    static final class RecordingPool implements WorkerPool {
        final List<Integer> asked = new ArrayList<>();
        final List<Long> ready = new ArrayList<>();

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
            asked.add(count);
        }

        @Override
        public List<Long> readyWorkerPids() {
            return ready;
        }

        @Override
        public void desiredExtraSlots(int count) {
            throw new AssertionError("the fork actuator asks for processes, never extra slots");
        }

        @Override
        public int readyExtraSlots() {
            return 0;
        }

        @Override
        public Actuator ractorSlots() {
            throw new AssertionError("the fork bundle makes no extra-slot actuator");
        }

        @Override
        public Actuator threadSlots() {
            throw new AssertionError("the fork bundle makes no extra-slot actuator");
        }
    }

    @Test
    void addAsksTheShepherdForTheNewTotalAndCountsTheUnitsAsBootingUntilTheyDialIn() {
        RecordingPool pool = new RecordingPool();
        pool.ready.addAll(List.of(1L, 2L));
        AtomicLong now = new AtomicLong(1_000);
        ForkActuator fork = new ForkActuator(pool, now::get, false);
        assertEquals(2, fork.units());
        assertEquals(5, fork.slotsPerUnit());
        fork.add(3);
        assertEquals(List.of(5), pool.asked);
        assertEquals(5, fork.units());
        assertEquals(2, fork.readyUnits());
        now.addAndGet(400_000_000);
        pool.ready.addAll(List.of(3L, 4L, 5L));
        assertEquals(5, fork.readyUnits());
        // the first measurement replaces the 1000 ms default
        assertEquals(400_000_000, fork.deadTimeNanos());
    }

    @Test
    void removeNeverGoesBelowOneWorkerAndRetiringProcessesAreNotReady() {
        RecordingPool pool = new RecordingPool();
        pool.ready.addAll(List.of(1L, 2L));
        ForkActuator fork = new ForkActuator(pool, System::nanoTime, false);
        fork.remove(5);
        assertEquals(List.of(1), pool.asked);
        assertEquals(1, fork.units());
        assertEquals(1, fork.readyUnits(), "the retiring worker still dialled in is not capacity asked for");
    }

    @Test
    void memoryPerUnitIsThePssOfReadyWorkersAndUnknownWithoutThem() {
        RecordingPool pool = new RecordingPool();
        ForkActuator fork = new ForkActuator(pool, System::nanoTime, false);
        assertEquals(-1, fork.memoryPerUnitBytes());
        pool.ready.add(ProcessHandle.current().pid());
        assertTrue(fork.memoryPerUnitBytes() > 1_000_000, "this JVM's Pss");
    }
}
