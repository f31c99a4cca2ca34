/*
 * Makes the Ractor actuator: the factory this bundle's manifest names, with which the host makes it on its
 * WorkerPool service when the bundle starts (a unit is one Ractor running one link inside a worker process,
 * EXTRA_SLOTS) and registers it as this bundle's Actuator. The controller bundle finds it as the Actuator
 * service of kind "ractor", the bridge of `autoscale bridge: :ractor`.
 */
package dev.pumaplus.actuator.ractor;

import dev.pumaplus.spi.Actuator;
import dev.pumaplus.spi.ActuatorFactory;
import dev.pumaplus.spi.WorkerPool;

/** The Ractor actuator's factory. */
public final class RactorActuatorFactory implements ActuatorFactory {

    @Override
    public Actuator make(WorkerPool pool) {
        return pool.ractorSlots();
    }
}
