/*
 * The start/stop life of every protocol bundle (before accept) and actuator bundle (the controller's actuate
 * step) inside the host's OSGi framework, done once for all of them: the OSGi extender pattern. Such a
 * bundle has no activator; it names its factory in a manifest header. When it starts, the host makes the
 * factory, opens it with the host's services and registers what it made as the bundle's services; when it
 * stops, the host undoes all of it, in reverse.
 */
package dev.pumaplus.host.lifecycle;

import dev.pumaplus.spi.Actuator;
import dev.pumaplus.spi.ActuatorFactory;
import dev.pumaplus.spi.HostSettings;
import dev.pumaplus.spi.ProtocolEndpoint;
import dev.pumaplus.spi.ProtocolFactory;
import dev.pumaplus.spi.ProtocolServices;
import dev.pumaplus.spi.RequestQueue;
import dev.pumaplus.spi.WorkerPool;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleEvent;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;
import org.osgi.util.tracker.BundleTracker;
import org.osgi.util.tracker.BundleTrackerCustomizer;

/**
 * Tracks active bundles. A bundle whose manifest names a {@link ProtocolFactory#HEADER} gets its
 * {@link ProtocolEndpoint} opened and registered under the endpoint's types, with its {@code protocol}
 * property; one that names an {@link ActuatorFactory#HEADER} gets its actuator made on the host's
 * WorkerPool and registered as its {@link Actuator} (the controller bundle finds it by kind; without a
 * WorkerPool, a host too old to offer one, it says so and registers nothing). Other bundles (the
 * controller, which has an activator of its own) are left alone.
 *
 * <p>The host's services are looked up through the bundle's own context, so the framework counts them as the
 * bundle's. A factory that cannot be made or an open that throws is kept as the bundle's {@link #failure},
 * which the launcher turns into a failed start (OSGi does not let a bundle listener fail a bundle's start).
 * When the bundle stops (before the framework withdraws its services): what was registered is unregistered,
 * the endpoint closed, and every service the open used released.
 *
 * <p>Threading: called on the thread that starts or stops the bundle (a synchronous bundle listener), one
 * event at a time per bundle.
 */
public final class BundleExtender implements BundleTrackerCustomizer<Runnable> {

    private static final System.Logger LOG = System.getLogger(BundleExtender.class.getName());

    private final BundleTracker<Runnable> tracker;
    private final Map<Long, RuntimeException> failures = new ConcurrentHashMap<>();

    /** @param host the system bundle's context, in whose framework the protocol and actuator bundles start */
    public BundleExtender(BundleContext host) {
        this.tracker = new BundleTracker<>(host, Bundle.ACTIVE, this);
    }

    /** Starts tracking; call before any protocol or actuator bundle starts. */
    public void open() {
        tracker.open();
    }

    /** Why the last start of {@code bundle} made or opened nothing, or null when it did (or names no factory). */
    public RuntimeException failure(Bundle bundle) {
        return failures.get(bundle.getBundleId());
    }

    /** Opens what an extended bundle offers; the result undoes it, or is null when the bundle is not tracked. */
    @Override
    public Runnable addingBundle(Bundle bundle, BundleEvent event) {
        String protocol = bundle.getHeaders().get(ProtocolFactory.HEADER);
        String actuator = bundle.getHeaders().get(ActuatorFactory.HEADER);
        if (protocol == null && actuator == null) {
            return null;
        }
        failures.remove(bundle.getBundleId());
        Lookups lookups = new Lookups(bundle);
        try {
            Offer offer = protocol != null
                    ? Offer.of(instance(bundle, ProtocolFactory.HEADER, protocol, ProtocolFactory.class).open(lookups))
                    : actuator(bundle, instance(bundle, ActuatorFactory.HEADER, actuator, ActuatorFactory.class), lookups);
            if (offer == null) {
                lookups.releaseAll();
                return null;
            }
            ServiceRegistration<?> registration;
            try {
                registration = bundle.getBundleContext().registerService(offer.types(), offer.service(),
                        offer.properties());
            } catch (RuntimeException e) {
                offer.close().run();
                throw e;
            }
            return () -> {
                registration.unregister();
                offer.close().run();
                lookups.releaseAll();
            };
        } catch (RuntimeException e) {
            lookups.releaseAll();
            failures.put(bundle.getBundleId(), e);
            // Reported once, by whoever started the bundle (the launcher's "bundle ... failed to start").
            LOG.log(System.Logger.Level.DEBUG, bundle.getSymbolicName() + ": " + e.getMessage());
            return null;
        }
    }

    @Override
    public void modifiedBundle(Bundle bundle, BundleEvent event, Runnable undo) {
        // still active: what it offers stands
    }

    @Override
    public void removedBundle(Bundle bundle, BundleEvent event, Runnable undo) {
        undo.run();
    }

    private static Offer actuator(Bundle bundle, ActuatorFactory factory, Lookups lookups) {
        WorkerPool pool = lookups.optional(WorkerPool.class);
        if (pool == null) {
            LOG.log(System.Logger.Level.WARNING,
                    bundle.getSymbolicName() + ": the host offers no WorkerPool; not registering");
            return null;
        }
        return new Offer(new String[] {Actuator.class.getName()}, factory.make(pool), null, () -> { });
    }

    /** The factory class {@code header} names, made with its public no-argument constructor. */
    private static <T> T instance(Bundle bundle, String header, String className, Class<T> type) {
        try {
            return bundle.loadClass(className).asSubclass(type).getConstructor().newInstance();
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalStateException(bundle.getSymbolicName() + ": " + header + " names " + className
                    + ", which is not a " + type.getSimpleName() + " with a public no-argument constructor: " + e, e);
        }
    }

    /** What a bundle's factory made, as the bundle's services: registered under {@code types}, then closed. */
    private record Offer(String[] types, Object service, Hashtable<String, Object> properties, Runnable close) {

        static Offer of(ProtocolEndpoint endpoint) {
            Hashtable<String, Object> properties = new Hashtable<>();
            properties.put("protocol", endpoint.protocol());
            return new Offer(endpoint.types().stream().map(Class::getName).toArray(String[]::new),
                    endpoint.service(), properties, endpoint.close());
        }
    }

    /** The host's services as one bundle gets them, each remembered so it is released once. */
    private static final class Lookups implements ProtocolServices {
        private final Bundle bundle;
        private final BundleContext context;
        private final List<ServiceReference<?>> used = new ArrayList<>();

        Lookups(Bundle bundle) {
            this.bundle = bundle;
            this.context = bundle.getBundleContext();
        }

        @Override
        public HostSettings settings() {
            return host(HostSettings.class);
        }

        @Override
        public RequestQueue queue() {
            return host(RequestQueue.class);
        }

        @Override
        public <T> T host(Class<T> type) {
            ServiceReference<T> ref = context.getServiceReference(type);
            if (ref == null) {
                throw new IllegalStateException(bundle.getSymbolicName() + ": no " + type.getName()
                        + " service registered; the puma-plus host registers it before starting protocol bundles");
            }
            T service = use(ref);
            if (service == null) {
                throw new IllegalStateException(bundle.getSymbolicName() + ": the host's " + type.getSimpleName()
                        + " service went away");
            }
            return service;
        }

        @Override
        public <T> T optional(Class<T> type) {
            ServiceReference<T> ref = context.getServiceReference(type);
            return ref == null ? null : use(ref);
        }

        private <T> T use(ServiceReference<T> ref) {
            used.add(ref);
            return context.getService(ref);
        }

        void releaseAll() {
            for (ServiceReference<?> ref : used) {
                context.ungetService(ref);
            }
            used.clear();
        }
    }
}
