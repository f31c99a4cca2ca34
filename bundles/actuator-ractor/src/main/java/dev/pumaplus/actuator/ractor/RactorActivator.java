/*
 * Registers the Ractor actuator when its bundle starts, on the host's WorkerPool service: a unit is one
 * Ractor running one link inside a worker process (EXTRA_SLOTS). The controller bundle finds it as the
 * Actuator service of kind "ractor", the bridge of `autoscale bridge: :ractor`.
 */
package dev.pumaplus.actuator.ractor;

import dev.pumaplus.spi.ActuatorActivator;
import dev.pumaplus.spi.WorkerPool;

/** The Ractor actuator's bundle activator. */
public final class RactorActivator extends ActuatorActivator {

    public RactorActivator() {
        super("actuator-ractor", WorkerPool::ractorSlots);
    }
}
