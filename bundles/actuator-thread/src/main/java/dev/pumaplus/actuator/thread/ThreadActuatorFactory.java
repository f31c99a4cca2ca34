/*
 * Makes the thread actuator: the factory this bundle's manifest names, with which the host makes it on its
 * WorkerPool service when the bundle starts (a unit is one more thread running one link inside a worker
 * process, EXTRA_SLOTS, under that process's GVL; its gain is known where the workers measure GVL wait, Ruby
 * 3.2+, and unknown elsewhere: docs/CONTROL.md) and registers it as this bundle's Actuator. The controller
 * bundle finds it as the Actuator service of kind "thread" (`autoscale bridge: :thread`).
 */
package dev.pumaplus.actuator.thread;

import dev.pumaplus.spi.Actuator;
import dev.pumaplus.spi.ActuatorFactory;
import dev.pumaplus.spi.WorkerPool;

/** The thread actuator's factory. */
public final class ThreadActuatorFactory implements ActuatorFactory {

    @Override
    public Actuator make(WorkerPool pool) {
        return pool.threadSlots();
    }
}
