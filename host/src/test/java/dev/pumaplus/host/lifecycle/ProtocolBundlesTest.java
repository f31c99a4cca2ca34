/*
 * Claims about the host's side of a protocol bundle's start and stop (before accept): ProtocolBundles opens
 * a registered ProtocolFactory with the host's services, registers its endpoint under the protocol's name,
 * closes it when the factory goes (its bundle stops), and keeps a refused open as the bundle's failure. Run
 * in a real embedded Felix; the factory is registered from the system bundle, as a bundle's activator would.
 */
package dev.pumaplus.host.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pumaplus.host.framework.EmbeddedFelix;
import dev.pumaplus.spi.HostSettings;
import dev.pumaplus.spi.Listener;
import dev.pumaplus.spi.ProtocolEndpoint;
import dev.pumaplus.spi.ProtocolFactory;
import dev.pumaplus.spi.RequestQueue;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ProtocolBundlesTest {

    @TempDir
    Path tmp;
    private EmbeddedFelix felix;
    private BundleContext context;
    private ProtocolBundles protocols;

    @BeforeEach
    void start() throws Exception {
        felix = EmbeddedFelix.start(tmp.resolve("felix"), "");
        context = felix.context();
        protocols = new ProtocolBundles(context);
        protocols.open();
    }

    @AfterEach
    void stop() {
        felix.stop(10_000);
    }

    @Test
    void opensTheFactoryWithTheHostsServicesAndClosesTheEndpointWhenTheFactoryGoes() {
        HostSettings settings = stub(HostSettings.class);
        RequestQueue queue = stub(RequestQueue.class);
        context.registerService(HostSettings.class, settings, null);
        context.registerService(RequestQueue.class, queue, null);
        AtomicReference<Object> seen = new AtomicReference<>();
        AtomicInteger closed = new AtomicInteger();
        Listener listener = stub(Listener.class);
        ServiceRegistration<ProtocolFactory> factory = context.registerService(ProtocolFactory.class, host -> {
            seen.set(List.of(host.settings(), host.queue()));
            return new ProtocolEndpoint("h9", listener, List.of(Listener.class), closed::incrementAndGet);
        }, null);

        assertEquals(List.of(settings, queue), seen.get(), "the factory got the host's settings and queue");
        ServiceReference<Listener> ref = context.getServiceReference(Listener.class);
        assertNotNull(ref, "the endpoint is registered as the bundle's Listener");
        assertEquals("h9", ref.getProperty("protocol"));
        assertSame(listener, context.getService(ref));
        assertNull(protocols.failure(context.getBundle()));

        factory.unregister(); // what the framework does when the bundle stops
        assertNull(context.getServiceReference(Listener.class), "its services go with it");
        assertEquals(1, closed.get(), "and the endpoint is closed, once");
    }

    @Test
    void aRefusedOpenIsTheBundlesFailureNamingTheMissingHostService() {
        AtomicInteger opened = new AtomicInteger();
        context.registerService(ProtocolFactory.class, host -> {
            opened.incrementAndGet();
            host.settings();
            throw new AssertionError("unreachable: the host has no HostSettings");
        }, null);
        assertEquals(1, opened.get());
        RuntimeException failure = protocols.failure(context.getBundle());
        assertNotNull(failure);
        assertTrue(failure.getMessage().contains("HostSettings"), failure.getMessage());
        assertNull(context.getServiceReference(Listener.class));
    }

    /** An implementation of {@code type} whose methods are never called for what they return. */
    static <T> T stub(Class<T> type) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                (proxy, method, args) -> switch (method.getName()) {
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> type.getSimpleName() + " stub";
                    default -> null;
                }));
    }
}
