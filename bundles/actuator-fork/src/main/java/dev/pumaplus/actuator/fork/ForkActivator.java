/*
 * Offers the fork actuator when its bundle starts: registers the factory with which the host makes it on its
 * WorkerPool service and registers it as this bundle's Actuator; the controller bundle finds it as the
 * Actuator service of kind "fork".
 */
package dev.pumaplus.actuator.fork;

import dev.pumaplus.spi.ActuatorFactory;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;

/** The fork actuator's bundle activator: the host counts the units {@link ForkUnits} defines. */
public final class ForkActivator implements BundleActivator {

    @Override
    public void start(BundleContext context) {
        context.registerService(ActuatorFactory.class, pool -> pool.countedActuator(new ForkUnits(pool)), null);
    }

    @Override
    public void stop(BundleContext context) {
        // the framework withdraws the factory, and the host then the actuator
    }
}
