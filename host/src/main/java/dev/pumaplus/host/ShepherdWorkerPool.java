/*
 * The WorkerPool service: sends DESIRED_WORKERS to the shepherd over its link and reports which worker
 * processes have dialled in every thread. What the fork actuator bundle drives.
 */
package dev.pumaplus.host;

import dev.pumaplus.spi.WorkerPool;
import dev.pumaplus.wire.DesiredWorkers;
import io.netty.channel.Channel;
import java.util.ArrayList;
import java.util.List;

/**
 * A process is ready when its live links equal {@code threads}: readiness is the connections, never a
 * timer. Requests for a count are sent as they come (the shepherd acts on the last one); a shepherd that
 * spoke protocol version 2 cannot take them and they are dropped with a line on stderr.
 */
final class ShepherdWorkerPool implements WorkerPool {

    private final Dispatcher dispatcher;
    private final Channel shepherd;
    private final int shepherdVersion;
    private final int threads;
    private final int initialWorkers;

    ShepherdWorkerPool(Dispatcher dispatcher, Channel shepherd, int shepherdVersion, int threads, int initialWorkers) {
        this.dispatcher = dispatcher;
        this.shepherd = shepherd;
        this.shepherdVersion = shepherdVersion;
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
        if (shepherdVersion < 3) {
            System.err.println("puma-plus: the shepherd speaks protocol " + shepherdVersion
                    + " and cannot change its worker count");
            return;
        }
        shepherd.writeAndFlush(new DesiredWorkers(Math.max(1, count)).toFrame(shepherd.alloc()));
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
}
