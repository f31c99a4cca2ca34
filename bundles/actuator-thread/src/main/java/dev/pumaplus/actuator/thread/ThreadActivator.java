/*
 * Registers the thread actuator when its bundle starts, on the host's WorkerPool service: a unit is one
 * more thread running one link inside a worker process (EXTRA_SLOTS), under that process's GVL; its gain is
 * known where the workers measure GVL wait (Ruby 3.2+) and unknown elsewhere (docs/CONTROL.md). The
 * controller bundle finds it as the Actuator service of kind "thread" (`autoscale bridge: :thread`).
 */
package dev.pumaplus.actuator.thread;

import dev.pumaplus.spi.ActuatorActivator;
import dev.pumaplus.spi.WorkerPool;

/** The thread actuator's bundle activator. */
public final class ThreadActivator extends ActuatorActivator {

    public ThreadActivator() {
        super("actuator-thread", WorkerPool::threadSlots);
    }
}
