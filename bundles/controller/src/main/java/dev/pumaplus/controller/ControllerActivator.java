/*
 * Starts the autoscaler and, for fiber slots, the concurrency limiter when the controller bundle starts (and
 * stops them when the bundle stops or is swapped by Bundle.update): builds the policies named in the
 * bundle's policy.properties, the autoscaler's with the operator's bounds from HostSettings, and registers
 * the Autoscaler service.
 */
package dev.pumaplus.controller;

import dev.pumaplus.spi.Actuator;
import dev.pumaplus.spi.Autoscaler;
import dev.pumaplus.spi.ConcurrencyLimit;
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
 * parameter of that policy by name ({@code targetUtilization=0.6}); {@code limit.policy=<id>} (default
 * {@code gradient/2}) and any parameter of the concurrency limiter as {@code limit.<name>}
 * ({@code limit.windowMs=100}). The operator's {@code autoscale min:,
 * max:, target_queue_p95:} (HostSettings {@code autoscale_min}, {@code autoscale_max},
 * {@code autoscale_target_queue_p95_ms}) override the file's. The primary actuator is the Actuator service
 * whose kind is HostSettings {@code autoscale_actuator} ({@link AutoscaleSettings}); the bridge, the one whose
 * kind is {@code autoscale_bridge} ({@code ractor}, {@code thread}; absent or null for none). The limiter runs
 * when the first generation's workers run fiber slots ({@code slot_kind}), on the host's ConcurrencyLimit
 * service. Without {@code autoscale} and without fiber slots the bundle does nothing.
 */
public final class ControllerActivator implements BundleActivator {

    /** Keys of policy.properties that belong to the concurrency limiter start with this. */
    static final String LIMIT_PREFIX = "limit.";

    private ControllerDriver driver;
    private LimitDriver limiter;
    private ServiceRegistration<Autoscaler> registration;
    private ServiceTracker<Actuator, Actuator> actuators;

    @Override
    public void start(BundleContext context) throws IOException {
        HostSettings host = service(context, HostSettings.class);
        LoadSignals signals = service(context, LoadSignals.class);
        ConcurrencyLimit limit = service(context, ConcurrencyLimit.class);
        AutoscaleSettings settings = host == null ? null : AutoscaleSettings.from(host);
        if (settings == null) {
            return;
        }
        Properties file = new Properties();
        try (InputStream in = ControllerActivator.class.getResourceAsStream("/policy.properties")) {
            if (in != null) {
                file.load(in);
            }
        }
        if (settings.fiberSlots() && limit != null) {
            String limitId = file.getProperty(LIMIT_PREFIX + "policy", GradientLimitPolicy.ID).trim();
            Map<String, Object> limitParams = new HashMap<>();
            for (String name : file.stringPropertyNames()) {
                if (name.startsWith(LIMIT_PREFIX) && !name.equals(LIMIT_PREFIX + "policy")) {
                    limitParams.put(name.substring(LIMIT_PREFIX.length()),
                            Double.parseDouble(file.getProperty(name).trim()));
                }
            }
            limiter = new LimitDriver(Policies.createLimit(limitId, limitParams), limit, System::nanoTime,
                    settings.decisionLog());
            limiter.start();
        }
        if (signals == null || !settings.enabled()) {
            return;
        }
        String id = file.getProperty("policy", TieredPolicy.ID).trim();
        Map<String, Object> params = new HashMap<>();
        for (String name : file.stringPropertyNames()) {
            if (!name.equals("policy") && !name.startsWith(LIMIT_PREFIX)) {
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
        if (limiter != null) {
            limiter.stop();
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
