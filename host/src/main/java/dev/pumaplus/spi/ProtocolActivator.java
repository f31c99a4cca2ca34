/*
 * The start/stop life of every protocol bundle inside the host's OSGi framework (before accept): get the
 * host's HostSettings and RequestQueue, open the bundle's endpoint, register it as the bundle's services,
 * and undo all of it, in reverse, when the bundle stops.
 */
package dev.pumaplus.spi;

import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;

/**
 * A protocol bundle's activator extends this and implements {@link #open}. The host registers its services
 * before it starts protocol bundles, so a missing one fails {@link #start} (naming it) rather than being
 * waited for. {@link #stop} unregisters the endpoint's services, closes the endpoint (which must release its
 * sockets and event loops before it returns) and releases every service {@link #start} got. Called by the
 * framework, one call at a time.
 */
public abstract class ProtocolActivator implements BundleActivator {

    /** What {@link #open} made: the object to register, under which service types, and how to close it. */
    public record Endpoint(Object service, List<Class<?>> types, Runnable close) {
    }

    private final String bundle;
    private final String protocol;
    private final List<ServiceReference<?>> used = new ArrayList<>();
    private BundleContext context;
    private Endpoint endpoint;
    private ServiceRegistration<?> registration;

    /**
     * @param bundle   the bundle's name for messages, e.g. {@code protocol-h2}
     * @param protocol the {@code protocol} property of its services, e.g. {@code h2}
     */
    protected ProtocolActivator(String bundle, String protocol) {
        this.bundle = bundle;
        this.protocol = protocol;
    }

    /** Opens the bundle's endpoint (binding sockets if it owns any); throws to fail the bundle's start. */
    protected abstract Endpoint open(HostSettings settings, RequestQueue queue);

    /** A service another bundle may offer, or null; released when this bundle stops. Only inside {@link #open}. */
    protected final <T> T optional(Class<T> type) {
        ServiceReference<T> ref = context.getServiceReference(type);
        return ref == null ? null : use(ref);
    }

    /**
     * A service the host offers beyond settings and queue (e.g. {@link EventLoops}); throws naming it when it
     * is missing, which fails the bundle's start. Released when this bundle stops. Only while starting.
     */
    protected final <T> T host(Class<T> type) {
        T service = use(required(type));
        if (service == null) {
            throw new IllegalStateException(bundle + ": the host's " + type.getSimpleName() + " service went away");
        }
        return service;
    }

    @Override
    public final void start(BundleContext bundleContext) {
        context = bundleContext;
        endpoint = open(host(HostSettings.class), host(RequestQueue.class));
        Hashtable<String, Object> properties = new Hashtable<>();
        properties.put("protocol", protocol);
        String[] names = endpoint.types().stream().map(Class::getName).toArray(String[]::new);
        registration = context.registerService(names, endpoint.service(), properties);
    }

    @Override
    public final void stop(BundleContext bundleContext) {
        if (registration != null) {
            registration.unregister();
            registration = null;
        }
        if (endpoint != null) {
            endpoint.close().run();
            endpoint = null;
        }
        for (ServiceReference<?> ref : used) {
            bundleContext.ungetService(ref);
        }
        used.clear();
    }

    private <T> ServiceReference<T> required(Class<T> type) {
        ServiceReference<T> ref = context.getServiceReference(type);
        if (ref == null) {
            throw new IllegalStateException(bundle + ": no " + type.getName()
                    + " service registered; the puma-plus host registers it before starting protocol bundles");
        }
        return ref;
    }

    private <T> T use(ServiceReference<T> ref) {
        used.add(ref);
        return context.getService(ref);
    }
}
