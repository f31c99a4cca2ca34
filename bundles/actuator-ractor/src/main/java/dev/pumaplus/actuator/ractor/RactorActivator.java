/*
 * Registers the Ractor actuator when its bundle starts, on the host's WorkerPool service: a unit is one
 * Ractor running one link inside a worker process (EXTRA_SLOTS). The controller bundle finds it as the
 * Actuator service of kind "ractor", the bridge of `autoscale bridge: :ractor`.
 */
package dev.pumaplus.actuator.ractor;

import dev.pumaplus.spi.Actuator;
import dev.pumaplus.spi.ExtraSlotActuator;
import dev.pumaplus.spi.WorkerPool;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;

/** Without a WorkerPool (a host too old to offer one) the bundle registers nothing. */
public final class RactorActivator implements BundleActivator {

    private ServiceRegistration<Actuator> registration;

    @Override
    public void start(BundleContext context) {
        ServiceReference<WorkerPool> ref = context.getServiceReference(WorkerPool.class);
        if (ref == null) {
            System.err.println("puma-plus: actuator-ractor: the host offers no WorkerPool; not registering");
            return;
        }
        registration = context.registerService(Actuator.class, ExtraSlotActuator.ractors(context.getService(ref)),
                null);
    }

    @Override
    public void stop(BundleContext context) {
        if (registration != null) {
            registration.unregister();
        }
    }
}
