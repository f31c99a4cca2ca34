/*
 * The start/stop life of every actuator bundle: on the host's WorkerPool service, make the bundle's
 * Actuator and register it (the controller bundle finds it by kind); unregister it when the bundle stops.
 */
package dev.pumaplus.spi;

import java.util.function.Function;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;

/**
 * An actuator bundle's activator extends this with its name and how it makes its actuator. Without a
 * WorkerPool (a host too old to offer one) the bundle says so and registers nothing. Called by the
 * framework, one call at a time.
 */
public abstract class ActuatorActivator implements BundleActivator {

    private final String bundle;
    private final Function<WorkerPool, Actuator> actuator;
    private ServiceRegistration<Actuator> registration;

    /**
     * @param bundle   the bundle's name for messages, e.g. {@code actuator-fork}
     * @param actuator makes the bundle's actuator on the host's WorkerPool
     */
    protected ActuatorActivator(String bundle, Function<WorkerPool, Actuator> actuator) {
        this.bundle = bundle;
        this.actuator = actuator;
    }

    @Override
    public final void start(BundleContext context) {
        ServiceReference<WorkerPool> ref = context.getServiceReference(WorkerPool.class);
        if (ref == null) {
            System.getLogger(getClass().getName()).log(System.Logger.Level.WARNING,
                    bundle + ": the host offers no WorkerPool; not registering");
            return;
        }
        registration = context.registerService(Actuator.class, actuator.apply(context.getService(ref)), null);
    }

    @Override
    public final void stop(BundleContext context) {
        if (registration != null) {
            registration.unregister();
            registration = null;
        }
    }
}
