/*
 * Offers the Ractor actuator when its bundle starts: the host makes it on its WorkerPool service (a unit is
 * one Ractor running one link inside a worker process, EXTRA_SLOTS) and registers it as this bundle's
 * Actuator. The controller bundle finds it as the Actuator service of kind "ractor", the bridge of
 * `autoscale bridge: :ractor`.
 */
package dev.pumaplus.actuator.ractor;

import dev.pumaplus.spi.ActuatorFactory;
import dev.pumaplus.spi.WorkerPool;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;

/** The Ractor actuator's bundle activator. */
public final class RactorActivator implements BundleActivator {

    @Override
    public void start(BundleContext context) {
        context.registerService(ActuatorFactory.class, WorkerPool::ractorSlots, null);
    }

    @Override
    public void stop(BundleContext context) {
        // the framework withdraws the factory, and the host then the actuator
    }
}
