/*
 * Claims about the fork actuator's units against a recording WorkerPool: worker processes asked for as a
 * total, counted by the pids that dialled in, never below one, and their memory. The counting itself (units
 * vs. ready, dead time) is the host's CountedActuator, tested there.
 */
package dev.pumaplus.actuator.fork;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pumaplus.spi.Actuator;
import dev.pumaplus.spi.CountedUnits;
import dev.pumaplus.spi.WorkerPool;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class ForkUnitsTest {

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

        @Override
        public Actuator countedActuator(CountedUnits units) {
            throw new AssertionError("not called: these claims are about the units alone");
        }
    }

    @Test
    void theUnitsAreTheConfiguredWorkerProcessesAskedForAsATotalAndCountedByTheirDialledInPids() {
        RecordingPool pool = new RecordingPool();
        pool.ready.addAll(List.of(1L, 2L));
        ForkUnits fork = new ForkUnits(pool);
        assertEquals("fork", fork.kind());
        assertEquals(2, fork.initialUnits());
        assertEquals(1, fork.minUnits(), "never fewer than one worker");
        assertEquals(5, fork.slotsPerUnit());
        assertEquals(1000, fork.defaultDeadTimeMs());
        assertTrue(fork.gainKnown());
        fork.request(5);
        assertEquals(List.of(5), pool.asked);
        assertEquals(2, fork.dialledIn());
    }

    @Test
    void memoryPerUnitIsThePssOfReadyWorkersAndUnknownWithoutThem() {
        RecordingPool pool = new RecordingPool();
        ForkUnits fork = new ForkUnits(pool);
        assertEquals(-1, fork.memoryPerUnitBytes());
        pool.ready.add(ProcessHandle.current().pid());
        assertTrue(fork.memoryPerUnitBytes() > 1_000_000, "this JVM's Pss");
    }
}
