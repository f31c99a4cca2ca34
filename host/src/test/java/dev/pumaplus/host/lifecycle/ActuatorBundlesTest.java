/*
 * Claims about the host's side of an actuator bundle's start and stop (the controller's actuate step):
 * ActuatorBundles makes the actuator a registered ActuatorFactory describes on the host's WorkerPool,
 * registers it as an Actuator service while the factory is there, and registers nothing without a
 * WorkerPool. Run in a real embedded Felix; the factory is registered from the system bundle.
 */
package dev.pumaplus.host.lifecycle;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.pumaplus.host.framework.EmbeddedFelix;
import dev.pumaplus.spi.Actuator;
import dev.pumaplus.spi.ActuatorFactory;
import dev.pumaplus.spi.WorkerPool;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
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
class ActuatorBundlesTest {

    @TempDir
    Path tmp;
    private EmbeddedFelix felix;
    private BundleContext context;

    @BeforeEach
    void start() throws Exception {
        felix = EmbeddedFelix.start(tmp.resolve("felix"), "");
        context = felix.context();
        new ActuatorBundles(context).open();
    }

    @AfterEach
    void stop() {
        felix.stop(10_000);
    }

    @Test
    void registersTheActuatorMadeOnTheWorkerPoolWhileItsFactoryIsThere() {
        WorkerPool pool = ProtocolBundlesTest.stub(WorkerPool.class);
        context.registerService(WorkerPool.class, pool, null);
        Actuator actuator = ProtocolBundlesTest.stub(Actuator.class);
        AtomicReference<WorkerPool> given = new AtomicReference<>();
        ServiceRegistration<ActuatorFactory> factory = context.registerService(ActuatorFactory.class, p -> {
            given.set(p);
            return actuator;
        }, null);

        assertSame(pool, given.get(), "made on the host's WorkerPool");
        ServiceReference<Actuator> ref = context.getServiceReference(Actuator.class);
        assertNotNull(ref);
        assertSame(actuator, context.getService(ref));

        factory.unregister(); // its bundle stopped
        assertNull(context.getServiceReference(Actuator.class), "the actuator goes with its bundle");
    }

    @Test
    void withoutAWorkerPoolNothingIsRegistered() {
        context.registerService(ActuatorFactory.class, p -> ProtocolBundlesTest.stub(Actuator.class), null);
        assertNull(context.getServiceReference(Actuator.class));
    }
}
