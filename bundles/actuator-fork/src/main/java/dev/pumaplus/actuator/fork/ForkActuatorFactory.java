/*
 * Makes the fork actuator: the factory this bundle's manifest names, with which the host makes it on its
 * WorkerPool service when the bundle starts and registers it as this bundle's Actuator; the controller
 * bundle finds it as the Actuator service of kind "fork".
 */
package dev.pumaplus.actuator.fork;

import dev.pumaplus.spi.Actuator;
import dev.pumaplus.spi.ActuatorFactory;
import dev.pumaplus.spi.WorkerPool;

/** The fork actuator's factory: the host counts the units {@link ForkUnits} defines. */
public final class ForkActuatorFactory implements ActuatorFactory {

    @Override
    public Actuator make(WorkerPool pool) {
        return pool.countedActuator(new ForkUnits(pool));
    }
}
