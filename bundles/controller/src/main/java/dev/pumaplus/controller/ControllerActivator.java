/*
 * Starts the autoscaler when the controller bundle starts (and stops it when the bundle stops or is
 * swapped by Bundle.update): builds the policy named in the bundle's policy.properties with the operator's
 * bounds from HostSettings, and registers the Autoscaler service.
 */
package dev.pumaplus.controller;

import dev.pumaplus.spi.Actuator;
import dev.pumaplus.spi.Autoscaler;
import dev.pumaplus.spi.HostSettings;
import dev.pumaplus.spi.LoadSignals;
import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;
import org.osgi.util.tracker.ServiceTracker;

/**
 * {@code policy.properties} (at the jar's root): {@code policy=<id>} (default {@code tiered/1}) and any
 * parameter of that policy by name ({@code targetUtilization=0.6}). The operator's {@code autoscale min:,
 * max:, target_queue_p95:} (HostSettings {@code autoscale_min}, {@code autoscale_max},
 * {@code autoscale_target_queue_p95_ms}) override the file's. The primary actuator is the Actuator service
 * whose kind is HostSettings {@code autoscale_actuator} ({@link AutoscaleSettings}); the bridge, the one whose
 * kind is {@code autoscale_bridge} ({@code ractor}, {@code thread}; absent or null for none). Without
 * {@code autoscale} in the configuration the bundle does nothing.
 */
public final class ControllerActivator implements BundleActivator {

    private ControllerDriver driver;
    private ServiceRegistration<Autoscaler> registration;
    private ServiceTracker<Actuator, Actuator> actuators;

    @Override
    public void start(BundleContext context) throws IOException {
        HostSettings host = service(context, HostSettings.class);
        LoadSignals signals = service(context, LoadSignals.class);
        AutoscaleSettings settings = host == null ? null : AutoscaleSettings.from(host);
        if (settings == null || signals == null || !settings.enabled()) {
            return;
        }
        Properties file = new Properties();
        try (InputStream in = ControllerActivator.class.getResourceAsStream("/policy.properties")) {
            if (in != null) {
                file.load(in);
            }
        }
        String id = file.getProperty("policy", TieredPolicy.ID).trim();
        Map<String, Object> params = new HashMap<>();
        for (String name : file.stringPropertyNames()) {
            if (!name.equals("policy")) {
                params.put(name, Double.parseDouble(file.getProperty(name).trim()));
            }
        }
        params.put("minUnits", settings.minUnits());
        params.put("maxUnits", settings.maxUnits());
        params.put("targetP95Ms", settings.targetP95Ms());
        Policy policy = Policies.create(id, params);
        actuators = new ServiceTracker<>(context, Actuator.class, null);
        actuators.open();
        driver = new ControllerDriver(policy, signals, this::actuatorOfKind, settings.actuator(), settings.bridge(),
                settings.decisionLog(), Observation.DEFAULT_TICK_MS);
        driver.start();
        registration = context.registerService(Autoscaler.class, driver, null);
    }

    @Override
    public void stop(BundleContext context) {
        if (registration != null) {
            registration.unregister();
        }
        if (driver != null) {
            driver.stop();
        }
        if (actuators != null) {
            actuators.close();
        }
    }

    private Actuator actuatorOfKind(String kind) {
        Actuator[] running = actuators.getServices(new Actuator[0]);
        for (Actuator a : running) {
            if (a.kind().equals(kind)) {
                return a;
            }
        }
        return null;
    }

    private static <T> T service(BundleContext context, Class<T> type) {
        ServiceReference<T> ref = context.getServiceReference(type);
        return ref == null ? null : context.getService(ref);
    }
}
