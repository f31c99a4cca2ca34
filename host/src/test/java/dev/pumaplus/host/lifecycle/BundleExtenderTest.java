/*
 * Claims about the host's side of a protocol or actuator bundle's start and stop (before accept; the
 * controller's actuate step): BundleExtender makes the factory a bundle's manifest names when it starts,
 * opens it with the host's services or makes the actuator on the host's WorkerPool, registers what it made
 * as the bundle's services, undoes it when the bundle stops, and keeps a refused open as the bundle's
 * failure. Run in a real embedded Felix with real bundles: each is a manifest naming one of this test's
 * factories, whose package the system bundle exports, so the bundle loads the very class the test sets up.
 */
package dev.pumaplus.host.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pumaplus.host.framework.EmbeddedFelix;
import dev.pumaplus.spi.Actuator;
import dev.pumaplus.spi.ActuatorFactory;
import dev.pumaplus.spi.HostSettings;
import dev.pumaplus.spi.Listener;
import dev.pumaplus.spi.ProtocolEndpoint;
import dev.pumaplus.spi.ProtocolFactory;
import dev.pumaplus.spi.ProtocolServices;
import dev.pumaplus.spi.RequestQueue;
import dev.pumaplus.spi.WorkerPool;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class BundleExtenderTest {

    @TempDir
    Path tmp;
    private EmbeddedFelix felix;
    private BundleContext context;
    private BundleExtender extender;

    @BeforeEach
    void start() throws Exception {
        felix = EmbeddedFelix.start(tmp.resolve("felix"), BundleExtenderTest.class.getPackageName());
        context = felix.context();
        extender = new BundleExtender(context);
        extender.open();
    }

    @AfterEach
    void stop() {
        felix.stop(10_000);
    }

    @Test
    void opensTheNamedProtocolFactoryWithTheHostsServicesAndClosesTheEndpointWhenTheBundleStops() throws Exception {
        HostSettings settings = stub(HostSettings.class);
        RequestQueue queue = stub(RequestQueue.class);
        context.registerService(HostSettings.class, settings, null);
        context.registerService(RequestQueue.class, queue, null);
        AtomicReference<Object> seen = new AtomicReference<>();
        AtomicInteger closed = new AtomicInteger();
        Listener listener = stub(Listener.class);
        TestProtocol.behaviour = host -> {
            seen.set(List.of(host.settings(), host.queue()));
            return new ProtocolEndpoint("h9", listener, List.of(Listener.class), closed::incrementAndGet);
        };

        Bundle bundle = install(ProtocolFactory.HEADER, TestProtocol.class);
        bundle.start();
        assertEquals(List.of(settings, queue), seen.get(), "the factory got the host's settings and queue");
        ServiceReference<Listener> ref = context.getServiceReference(Listener.class);
        assertNotNull(ref, "the endpoint is registered as the bundle's Listener");
        assertSame(bundle, ref.getBundle());
        assertEquals("h9", ref.getProperty("protocol"));
        assertSame(listener, context.getService(ref));
        assertNull(extender.failure(bundle));

        bundle.stop();
        assertNull(context.getServiceReference(Listener.class), "its services go with it");
        assertEquals(1, closed.get(), "and the endpoint is closed, once");
    }

    @Test
    void aRefusedOpenIsTheBundlesFailureNamingTheMissingHostService() throws Exception {
        AtomicInteger opened = new AtomicInteger();
        TestProtocol.behaviour = host -> {
            opened.incrementAndGet();
            host.settings();
            throw new AssertionError("unreachable: the host has no HostSettings");
        };
        Bundle bundle = install(ProtocolFactory.HEADER, TestProtocol.class);
        bundle.start();
        assertEquals(1, opened.get());
        RuntimeException failure = extender.failure(bundle);
        assertNotNull(failure);
        assertTrue(failure.getMessage().contains("HostSettings"), failure.getMessage());
        assertNull(context.getServiceReference(Listener.class));
    }

    @Test
    void aHeaderNamingNoFactoryIsTheBundlesFailureNamingTheClass() throws Exception {
        Bundle bundle = install(ProtocolFactory.HEADER, BundleExtenderTest.class);
        bundle.start();
        RuntimeException failure = extender.failure(bundle);
        assertNotNull(failure);
        assertTrue(failure.getMessage().contains(BundleExtenderTest.class.getName()), failure.getMessage());
    }

    @Test
    void registersTheActuatorMadeOnTheWorkerPoolWhileItsBundleIsActiveAgainAfterARestart() throws Exception {
        WorkerPool pool = stub(WorkerPool.class);
        context.registerService(WorkerPool.class, pool, null);
        Actuator actuator = stub(Actuator.class);
        AtomicReference<WorkerPool> given = new AtomicReference<>();
        TestActuator.behaviour = p -> {
            given.set(p);
            return actuator;
        };

        Bundle bundle = install(ActuatorFactory.HEADER, TestActuator.class);
        bundle.start();
        assertSame(pool, given.get(), "made on the host's WorkerPool");
        ServiceReference<Actuator> ref = context.getServiceReference(Actuator.class);
        assertNotNull(ref);
        assertSame(bundle, ref.getBundle());
        assertSame(actuator, context.getService(ref));

        bundle.stop();
        assertNull(context.getServiceReference(Actuator.class), "the actuator goes with its bundle");
        bundle.start();
        assertNotNull(context.getServiceReference(Actuator.class), "and comes back when it starts again");
    }

    @Test
    void withoutAWorkerPoolNoActuatorIsRegistered() throws Exception {
        TestActuator.behaviour = p -> stub(Actuator.class);
        Bundle bundle = install(ActuatorFactory.HEADER, TestActuator.class);
        bundle.start();
        assertNull(context.getServiceReference(Actuator.class));
        assertNull(extender.failure(bundle));
    }

    /** A bundle with no activator and no classes whose manifest names {@code factory} in {@code header}. */
    private Bundle install(String header, Class<?> factory) throws Exception {
        Manifest manifest = new Manifest();
        Attributes main = manifest.getMainAttributes();
        main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        main.putValue("Bundle-ManifestVersion", "2");
        main.putValue("Bundle-SymbolicName", "test." + factory.getSimpleName());
        main.putValue("Import-Package", factory.getPackageName());
        main.putValue(header, factory.getName());
        Path jar = tmp.resolve(factory.getSimpleName() + ".jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest)) {
            // the manifest is the whole bundle
        }
        return context.installBundle(jar.toUri().toString());
    }

    /** The test bundle's protocol factory: it opens whatever the running test set. */
    public static final class TestProtocol implements ProtocolFactory {
        static volatile Function<ProtocolServices, ProtocolEndpoint> behaviour;

        @Override
        public ProtocolEndpoint open(ProtocolServices host) {
            return behaviour.apply(host);
        }
    }

    /** The test bundle's actuator factory: it makes whatever the running test set. */
    public static final class TestActuator implements ActuatorFactory {
        static volatile ActuatorFactory behaviour;

        @Override
        public Actuator make(WorkerPool pool) {
            return behaviour.make(pool);
        }
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
