/*
 * The WorkerPool service: asks the current shepherd for a worker process count (the WORKER_COUNT frame,
 * through Generations) or for slots beyond threads (EXTRA_SLOTS) and reports which worker processes have
 * dialled in every thread and how many extra slots have dialled in. What the actuator bundles drive.
 */
package dev.pumaplus.host.lifecycle;

import dev.pumaplus.host.queue.Dispatcher;
import dev.pumaplus.host.queue.ProcessStatus;
import dev.pumaplus.host.queue.QueueReadout;
import dev.pumaplus.spi.Actuator;
import dev.pumaplus.spi.CountedUnits;
import dev.pumaplus.spi.WorkerPool;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * A process is ready when its live links reach {@code threadsPerWorker}; an extra slot is ready when its link
 * is live beyond them: readiness is the connections, never a timer. A count is sent as it comes (the
 * shepherd acts on the last one it read).
 *
 * @param queue            where the live links are counted
 * @param workerCounts     sends a worker process count to the current shepherd ({@link Generations#scaleWorkers})
 * @param extraSlotCounts  sends an extra-slot count to the current shepherd ({@link Generations#scaleExtraSlots})
 * @param threadsPerWorker slots per worker process, from the first generation's CONFIG
 * @param initialWorkers   worker processes the first generation starts with
 */
public record ShepherdWorkerPool(QueueReadout queue, IntConsumer workerCounts, IntConsumer extraSlotCounts,
                          int threadsPerWorker, int initialWorkers) implements WorkerPool {

    @Override
    public void desiredWorkers(int count) {
        workerCounts.accept(Math.max(1, count));
    }

    @Override
    public List<Long> readyWorkerPids() {
        List<Long> ready = new ArrayList<>();
        for (ProcessStatus p : queue.snapshot().processes()) {
            if (p.live() >= threadsPerWorker) {
                ready.add(p.pid());
            }
        }
        return ready;
    }

    @Override
    public void desiredExtraSlots(int count) {
        extraSlotCounts.accept(Math.max(0, count));
    }

    @Override
    public int readyExtraSlots() {
        int extra = 0;
        for (ProcessStatus p : queue.snapshot().processes()) {
            extra += Math.max(0, p.live() - threadsPerWorker);
        }
        return extra;
    }

    @Override
    public Actuator ractorSlots() {
        return ExtraSlots.ractors(this);
    }

    @Override
    public Actuator threadSlots() {
        return ExtraSlots.threads(this);
    }

    @Override
    public Actuator countedActuator(CountedUnits units) {
        return new CountedActuator(units, System::nanoTime, true);
    }
}
