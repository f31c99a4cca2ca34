/*
 * The start/stop life of every actuator bundle (the controller's actuate step), done once for all of them
 * (the OSGi extender pattern): when a bundle registers its ActuatorFactory, make its Actuator on the host's
 * WorkerPool and register it as the bundle's service (the controller bundle finds it by kind); unregister
 * it when the bundle stops.
 */
package dev.pumaplus.host.lifecycle;

import dev.pumaplus.spi.Actuator;
import dev.pumaplus.spi.ActuatorFactory;
import dev.pumaplus.spi.WorkerPool;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceEvent;
import org.osgi.framework.ServiceListener;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;

/**
 * Listens on the framework's service registry; makes and registers on the thread that registered the
 * factory (the bundle's start). Without a WorkerPool (a host too old to offer one) it says so and registers
 * nothing. Thread-safe: the framework calls one event at a time per bundle.
 */
public final class ActuatorBundles implements ServiceListener {

    private static final System.Logger LOG = System.getLogger(ActuatorBundles.class.getName());

    private final BundleContext host;
    private final Map<ServiceReference<?>, ServiceRegistration<Actuator>> registered = new ConcurrentHashMap<>();

    /** @param host the system bundle's context, whose registry the actuator bundles' factories appear in */
    public ActuatorBundles(BundleContext host) {
        this.host = host;
    }

    /** Starts listening; call before any actuator bundle starts. */
    public void open() {
        try {
            host.addServiceListener(this, "(objectClass=" + ActuatorFactory.class.getName() + ")");
        } catch (InvalidSyntaxException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    @Override
    public void serviceChanged(ServiceEvent event) {
        ServiceReference<?> ref = event.getServiceReference();
        if (event.getType() == ServiceEvent.REGISTERED) {
            register(ref);
        } else if (event.getType() == ServiceEvent.UNREGISTERING) {
            ServiceRegistration<Actuator> registration = registered.remove(ref);
            if (registration != null) {
                try {
                    registration.unregister();
                } catch (IllegalStateException alreadyGone) {
                    // the framework withdrew the bundle's services first
                }
            }
        }
    }

    private void register(ServiceReference<?> ref) {
        Bundle bundle = ref.getBundle();
        BundleContext context = bundle.getBundleContext();
        ServiceReference<WorkerPool> pool = context.getServiceReference(WorkerPool.class);
        if (pool == null) {
            LOG.log(System.Logger.Level.WARNING,
                    bundle.getSymbolicName() + ": the host offers no WorkerPool; not registering");
            return;
        }
        ActuatorFactory factory = (ActuatorFactory) context.getService(ref);
        Actuator actuator = factory.make(context.getService(pool));
        registered.put(ref, context.registerService(Actuator.class, actuator, null));
    }
}
