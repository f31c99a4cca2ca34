/*
 * Registers the fork actuator when its bundle starts, on the host's WorkerPool service; the controller
 * bundle finds it as the Actuator service of kind "fork".
 */
package dev.pumaplus.actuator.fork;

import dev.pumaplus.spi.ActuatorActivator;

/** The fork actuator's bundle activator. */
public final class ForkActivator extends ActuatorActivator {

    public ForkActivator() {
        super("actuator-fork", pool -> pool.countedActuator(new ForkUnits(pool)));
    }
}
