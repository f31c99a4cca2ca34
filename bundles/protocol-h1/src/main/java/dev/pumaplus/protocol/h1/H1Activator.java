/*
 * Starts and stops the HTTP/1.1 protocol bundle inside the host's OSGi framework: finds the host's
 * RequestQueue and HostSettings, opens the listeners (accept → parse → queue → ...) and registers them as
 * a Listener service for the host's graceful stop.
 */
package dev.pumaplus.protocol.h1;

import dev.pumaplus.spi.HostSettings;
import dev.pumaplus.spi.Http2Handoff;
import dev.pumaplus.spi.Http3Endpoints;
import dev.pumaplus.spi.Listener;
import dev.pumaplus.spi.RequestQueue;
import java.util.Hashtable;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;

/**
 * The bundle's activator. The host registers its services before it starts protocol bundles, so a missing
 * service fails {@link #start} rather than being waited for. Called by the framework, one call at a time.
 */
public final class H1Activator implements BundleActivator {

    private H1Server server;
    private ServiceRegistration<Listener> registration;
    private ServiceReference<HostSettings> settingsRef;
    private ServiceReference<RequestQueue> queueRef;
    private ServiceReference<Http2Handoff> h2Ref;
    private ServiceReference<Http3Endpoints> h3Ref;

    /** Binds every configured address; throws (naming the address or the missing service) on failure. */
    @Override
    public void start(BundleContext context) {
        settingsRef = reference(context, HostSettings.class);
        queueRef = reference(context, RequestQueue.class);
        HostSettings settings = context.getService(settingsRef);
        RequestQueue queue = context.getService(queueRef);
        if (settings == null || queue == null) {
            throw new IllegalStateException("protocol-h1: the host's HostSettings/RequestQueue service went away");
        }
        // Optional: protocol-h2 and protocol-h3 are started before this bundle when the deployment loads them.
        h2Ref = context.getServiceReference(Http2Handoff.class);
        Http2Handoff h2 = h2Ref == null ? null : context.getService(h2Ref);
        h3Ref = context.getServiceReference(Http3Endpoints.class);
        Http3Endpoints h3 = h3Ref == null ? null : context.getService(h3Ref);
        server = new H1Server(settings, queue, h2, h3);
        server.start();
        Hashtable<String, Object> properties = new Hashtable<>();
        properties.put("protocol", "http/1.1");
        registration = context.registerService(Listener.class, server, properties);
    }

    /** Closes every socket and shuts the event loops down before returning. */
    @Override
    public void stop(BundleContext context) {
        if (registration != null) {
            registration.unregister();
            registration = null;
        }
        if (server != null) {
            server.close();
            server = null;
        }
        for (ServiceReference<?> ref : new ServiceReference<?>[] {settingsRef, queueRef, h2Ref, h3Ref}) {
            if (ref != null) {
                context.ungetService(ref);
            }
        }
        settingsRef = null;
        queueRef = null;
        h2Ref = null;
        h3Ref = null;
    }

    private static <T> ServiceReference<T> reference(BundleContext context, Class<T> type) {
        ServiceReference<T> ref = context.getServiceReference(type);
        if (ref == null) {
            throw new IllegalStateException("protocol-h1: no " + type.getName()
                    + " service registered; the puma-plus host registers it before starting protocol bundles");
        }
        return ref;
    }
}
