/*
 * Offers the thread actuator when its bundle starts: the host makes it on its WorkerPool service (a unit is
 * one more thread running one link inside a worker process, EXTRA_SLOTS, under that process's GVL; its gain
 * is known where the workers measure GVL wait, Ruby 3.2+, and unknown elsewhere: docs/CONTROL.md) and
 * registers it as this bundle's Actuator. The controller bundle finds it as the Actuator service of kind
 * "thread" (`autoscale bridge: :thread`).
 */
package dev.pumaplus.actuator.thread;

import dev.pumaplus.spi.ActuatorFactory;
import dev.pumaplus.spi.WorkerPool;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;

/** The thread actuator's bundle activator. */
public final class ThreadActivator implements BundleActivator {

    @Override
    public void start(BundleContext context) {
        context.registerService(ActuatorFactory.class, WorkerPool::threadSlots, null);
    }

    @Override
    public void stop(BundleContext context) {
        // the framework withdraws the factory, and the host then the actuator
    }
}
