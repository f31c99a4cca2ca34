/*
 * Registers the fork actuator when its bundle starts, on the host's WorkerPool service; the controller
 * bundle finds it as the Actuator service.
 */
package dev.pumaplus.actuator.fork;

import dev.pumaplus.spi.Actuator;
import dev.pumaplus.spi.WorkerPool;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;

/** Without a WorkerPool (a host too old to offer one) the bundle registers nothing. */
public final class ForkActivator implements BundleActivator {

    private ServiceRegistration<Actuator> registration;

    @Override
    public void start(BundleContext context) {
        ServiceReference<WorkerPool> ref = context.getServiceReference(WorkerPool.class);
        if (ref == null) {
            System.err.println("puma-plus: actuator-fork: the host offers no WorkerPool; not registering");
            return;
        }
        registration = context.registerService(Actuator.class,
                new ForkActuator(context.getService(ref), System::nanoTime, true), null);
    }

    @Override
    public void stop(BundleContext context) {
        if (registration != null) {
            registration.unregister();
        }
    }
}
