/*
 * Starts and stops the HTTP/2 protocol bundle inside the host's OSGi framework: registers the Http2Handoff
 * service through which protocol-h1 hands over h2 and h2c connections (accept → parse), and a Listener for
 * the host's graceful stop.
 */
package dev.pumaplus.protocol.h2;

import dev.pumaplus.spi.HostSettings;
import dev.pumaplus.spi.Http2Handoff;
import dev.pumaplus.spi.Listener;
import dev.pumaplus.spi.RequestQueue;
import java.util.Hashtable;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;

/**
 * The bundle's activator. Opens no socket itself: protocol-h1 owns the TCP listeners and is started after
 * this bundle, so it finds the handoff service when it binds. Called by the framework, one call at a time.
 */
public final class H2Activator implements BundleActivator {

    private H2Connections connections;
    private ServiceRegistration<?> registration;
    private ServiceReference<HostSettings> settingsRef;
    private ServiceReference<RequestQueue> queueRef;

    @Override
    public void start(BundleContext context) {
        settingsRef = reference(context, HostSettings.class);
        queueRef = reference(context, RequestQueue.class);
        HostSettings settings = context.getService(settingsRef);
        RequestQueue queue = context.getService(queueRef);
        if (settings == null || queue == null) {
            throw new IllegalStateException("protocol-h2: the host's HostSettings/RequestQueue service went away");
        }
        connections = new H2Connections(queue, H2Config.from(settings));
        Hashtable<String, Object> properties = new Hashtable<>();
        properties.put("protocol", "h2");
        registration = context.registerService(
                new String[] {Http2Handoff.class.getName(), Listener.class.getName()}, connections, properties);
    }

    /** Closes every HTTP/2 connection (GOAWAY first) before returning. */
    @Override
    public void stop(BundleContext context) {
        if (registration != null) {
            registration.unregister();
            registration = null;
        }
        if (connections != null) {
            connections.close();
            connections = null;
        }
        for (ServiceReference<?> ref : new ServiceReference<?>[] {settingsRef, queueRef}) {
            if (ref != null) {
                context.ungetService(ref);
            }
        }
        settingsRef = null;
        queueRef = null;
    }

    private static <T> ServiceReference<T> reference(BundleContext context, Class<T> type) {
        ServiceReference<T> ref = context.getServiceReference(type);
        if (ref == null) {
            throw new IllegalStateException("protocol-h2: no " + type.getName()
                    + " service registered; the puma-plus host registers it before starting protocol bundles");
        }
        return ref;
    }
}
