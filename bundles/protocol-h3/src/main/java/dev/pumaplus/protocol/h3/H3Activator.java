/*
 * Starts and stops the HTTP/3 protocol bundle inside the host's OSGi framework: registers the
 * Http3Endpoints service through which protocol-h1 opens QUIC beside each TLS listener (accept step), and
 * a Listener for the host's graceful stop. Loaded only when the deployment lists h3 in `bundles`.
 */
package dev.pumaplus.protocol.h3;

import dev.pumaplus.spi.HostSettings;
import dev.pumaplus.spi.Http3Endpoints;
import dev.pumaplus.spi.Listener;
import dev.pumaplus.spi.RequestQueue;
import java.util.Hashtable;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;

/** The bundle's activator; called by the framework, one call at a time. */
public final class H3Activator implements BundleActivator {

    private H3Endpoints endpoints;
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
            throw new IllegalStateException("protocol-h3: the host's HostSettings/RequestQueue service went away");
        }
        endpoints = new H3Endpoints(queue, settings.number("http_content_length_limit", -1));
        Hashtable<String, Object> properties = new Hashtable<>();
        properties.put("protocol", "h3");
        registration = context.registerService(
                new String[] {Http3Endpoints.class.getName(), Listener.class.getName()}, endpoints, properties);
    }

    /** Closes every QUIC listener and its connections before returning. */
    @Override
    public void stop(BundleContext context) {
        if (registration != null) {
            registration.unregister();
            registration = null;
        }
        if (endpoints != null) {
            endpoints.close();
            endpoints = null;
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
            throw new IllegalStateException("protocol-h3: no " + type.getName()
                    + " service registered; the puma-plus host registers it before starting protocol bundles");
        }
        return ref;
    }
}
