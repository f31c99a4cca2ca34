/*
 * The start/stop life of every protocol bundle inside the host's OSGi framework (before accept), done once
 * for all of them (the OSGi extender pattern): when a bundle registers its ProtocolFactory, open its
 * endpoint with the host's services and register it as the bundle's services; when the bundle stops, undo
 * all of it, in reverse.
 */
package dev.pumaplus.host.lifecycle;

import dev.pumaplus.spi.HostSettings;
import dev.pumaplus.spi.ProtocolEndpoint;
import dev.pumaplus.spi.ProtocolFactory;
import dev.pumaplus.spi.ProtocolServices;
import dev.pumaplus.spi.RequestQueue;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
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
 * Listens on the framework's service registry. A factory is opened on the thread that registered it (the
 * bundle's start), with services looked up through the bundle's own context, so the framework counts them
 * as the bundle's. An open that throws is kept as the bundle's {@link #failure}, which the launcher turns
 * into a failed start (OSGi does not let a service listener fail a bundle's start). When the
 * factory goes (its bundle stops): the endpoint's services are unregistered, the endpoint closed, and every
 * service the open used released. Thread-safe: the framework calls one event at a time per bundle.
 */
public final class ProtocolBundles implements ServiceListener {

    private static final System.Logger LOG = System.getLogger(ProtocolBundles.class.getName());

    private final BundleContext host;
    private final Map<ServiceReference<?>, Opened> opened = new ConcurrentHashMap<>();
    private final Map<Long, RuntimeException> failures = new ConcurrentHashMap<>();

    /** @param host the system bundle's context, whose registry the protocol bundles' factories appear in */
    public ProtocolBundles(BundleContext host) {
        this.host = host;
    }

    /** Starts listening; call before any protocol bundle starts. */
    public void open() {
        try {
            host.addServiceListener(this, "(objectClass=" + ProtocolFactory.class.getName() + ")");
        } catch (InvalidSyntaxException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    /** Why the last open of {@code bundle}'s factory failed, or null when it opened (or has none). */
    public RuntimeException failure(Bundle bundle) {
        return failures.get(bundle.getBundleId());
    }

    @Override
    public void serviceChanged(ServiceEvent event) {
        ServiceReference<?> ref = event.getServiceReference();
        switch (event.getType()) {
            case ServiceEvent.REGISTERED -> open(ref);
            case ServiceEvent.UNREGISTERING -> close(ref);
            default -> {
                // a changed property of a factory means nothing here
            }
        }
    }

    private void open(ServiceReference<?> ref) {
        Bundle bundle = ref.getBundle();
        String name = bundle.getSymbolicName();
        failures.remove(bundle.getBundleId());
        Lookups lookups = new Lookups(bundle.getBundleContext(), name);
        try {
            ProtocolFactory factory = (ProtocolFactory) lookups.use(ref);
            ProtocolEndpoint endpoint = factory.open(lookups);
            Hashtable<String, Object> properties = new Hashtable<>();
            properties.put("protocol", endpoint.protocol());
            String[] names = endpoint.types().stream().map(Class::getName).toArray(String[]::new);
            ServiceRegistration<?> registration;
            try {
                registration = bundle.getBundleContext().registerService(names, endpoint.service(), properties);
            } catch (RuntimeException e) {
                endpoint.close().run();
                throw e;
            }
            opened.put(ref, new Opened(registration, endpoint, lookups));
        } catch (RuntimeException e) {
            lookups.releaseAll();
            failures.put(bundle.getBundleId(), e);
            // Reported once, by whoever started the bundle (the launcher's "bundle ... failed to start").
            LOG.log(System.Logger.Level.DEBUG, name + ": " + e.getMessage());
        }
    }

    private void close(ServiceReference<?> ref) {
        Opened o = opened.remove(ref);
        if (o == null) {
            return;
        }
        try {
            o.registration().unregister();
        } catch (IllegalStateException alreadyGone) {
            // the framework withdrew the bundle's services first
        }
        o.endpoint().close().run();
        o.lookups().releaseAll();
    }

    private record Opened(ServiceRegistration<?> registration, ProtocolEndpoint endpoint, Lookups lookups) {
    }

    /** The host's services as one bundle gets them, each remembered so it is released once. */
    private static final class Lookups implements ProtocolServices {
        private final BundleContext context;
        private final String bundle;
        private final List<ServiceReference<?>> used = new ArrayList<>();

        Lookups(BundleContext context, String bundle) {
            this.context = context;
            this.bundle = bundle;
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
                throw new IllegalStateException(bundle + ": no " + type.getName()
                        + " service registered; the puma-plus host registers it before starting protocol bundles");
            }
            T service = type.cast(use(ref));
            if (service == null) {
                throw new IllegalStateException(bundle + ": the host's " + type.getSimpleName() + " service went away");
            }
            return service;
        }

        @Override
        public <T> T optional(Class<T> type) {
            ServiceReference<T> ref = context.getServiceReference(type);
            return ref == null ? null : type.cast(use(ref));
        }

        Object use(ServiceReference<?> ref) {
            used.add(ref);
            return context.getService(ref);
        }

        void releaseAll() {
            for (ServiceReference<?> ref : used) {
                try {
                    context.ungetService(ref);
                } catch (IllegalStateException stopped) {
                    // the bundle's context is gone: the framework released them itself
                }
            }
            used.clear();
        }
    }
}
