/*
 * The WorkerPool service: asks the current shepherd for a worker process count (the WORKER_COUNT frame,
 * through the launcher) or for slots beyond threads (EXTRA_SLOTS) and reports which worker processes have
 * dialled in every thread and how many extra slots have dialled in. What the actuator bundles drive.
 */
package dev.pumaplus.host;

import dev.pumaplus.spi.WorkerPool;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * A process is ready when its live links reach {@code threads}; an extra slot is ready when its link is
 * live beyond them: readiness is the connections, never a timer. A count is sent as it comes (the
 * shepherd acts on the last one it read).
 */
final class ShepherdWorkerPool implements WorkerPool {

    private final Dispatcher dispatcher;
    private final IntConsumer desiredWorkers;
    private final IntConsumer desiredExtraSlots;
    private final int threads;
    private final int initialWorkers;

    /**
     * @param desiredWorkers    sends the count to the current shepherd ({@link Launcher#scaleWorkers})
     * @param desiredExtraSlots sends the count to the current shepherd ({@link Launcher#scaleExtraSlots})
     */
    ShepherdWorkerPool(Dispatcher dispatcher, IntConsumer desiredWorkers, IntConsumer desiredExtraSlots,
                       int threads, int initialWorkers) {
        this.dispatcher = dispatcher;
        this.desiredWorkers = desiredWorkers;
        this.desiredExtraSlots = desiredExtraSlots;
        this.threads = threads;
        this.initialWorkers = initialWorkers;
    }

    @Override
    public int threadsPerWorker() {
        return threads;
    }

    @Override
    public int initialWorkers() {
        return initialWorkers;
    }

    @Override
    public void desiredWorkers(int count) {
        desiredWorkers.accept(Math.max(1, count));
    }

    @Override
    public List<Long> readyWorkerPids() {
        List<Long> ready = new ArrayList<>();
        for (Dispatcher.ProcessStatus p : dispatcher.snapshot().processes()) {
            if (p.live() >= threads) {
                ready.add(p.pid());
            }
        }
        return ready;
    }

    @Override
    public void desiredExtraSlots(int count) {
        desiredExtraSlots.accept(Math.max(0, count));
    }

    @Override
    public int readyExtraSlots() {
        int extra = 0;
        for (Dispatcher.ProcessStatus p : dispatcher.snapshot().processes()) {
            extra += Math.max(0, p.live() - threads);
        }
        return extra;
    }
}
