/*
 * The OSGi runtime the host embeds: Apache Felix, in which protocol bundles run and find the host's
 * RequestQueue and HostSettings services; started by the Launcher before the shepherd, stopped last.
 */
package dev.pumaplus.host.framework;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.launch.FrameworkFactory;

/**
 * Wraps one Felix framework: storage in the host's private directory (cleaned on first init), the host's
 * class-path packages exported through {@code org.osgi.framework.system.packages.extra}. Bundle install
 * and start happen on the launcher thread; {@link #stop} waits for the framework to stop.
 */
public final class EmbeddedFelix {

    private static final System.Logger LOG = System.getLogger(EmbeddedFelix.class.getName());

    private final Framework framework;

    private EmbeddedFelix(Framework framework) {
        this.framework = framework;
    }

    /** Creates, initialises and starts the framework. */
    public static EmbeddedFelix start(Path storage, String systemPackagesExtra) throws BundleException {
        Map<String, Object> config = new HashMap<>();
        config.put(Constants.FRAMEWORK_STORAGE, storage.toString());
        config.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        config.put(Constants.FRAMEWORK_SYSTEMPACKAGES_EXTRA, systemPackagesExtra);
        // Felix's own reports (errors and warnings) go to the host's log; Felix takes the logger object
        // from the same map as the string properties.
        config.put("felix.log.level", "2");
        config.put("felix.log.logger", new FelixLog());
        FrameworkFactory factory = ServiceLoader.load(FrameworkFactory.class).findFirst()
                .orElseThrow(() -> new BundleException("no OSGi FrameworkFactory on the class path"));
        @SuppressWarnings({"unchecked", "rawtypes"})
        Framework framework = factory.newFramework((Map) config);
        framework.init();
        framework.start();
        return new EmbeddedFelix(framework);
    }

    /** The system bundle's context, for registering the host's services. */
    public BundleContext context() {
        return framework.getBundleContext();
    }

    /** Installs {@code jar} and starts it unless it is a fragment. */
    public Bundle installAndStart(Path jar) throws BundleException {
        Bundle bundle = context().installBundle(jar.toUri().toString());
        if (bundle.getHeaders().get(Constants.FRAGMENT_HOST) == null) {
            bundle.start();
        }
        return bundle;
    }

    /**
     * Replaces the installed bundle {@code symbolicName} with the content of {@code jar}, live
     * ({@code Bundle.update}: the old bundle stops, the new one starts, its services replace the old ones),
     * then refreshes it so the old class loader is dropped (waits up to 10 s). Blocks the calling thread:
     * never call it on an event loop.
     *
     * @throws BundleException when no such bundle is installed or the new one fails to start
     */
    public void update(String symbolicName, Path jar) throws BundleException, java.io.IOException {
        Bundle target = null;
        for (Bundle b : context().getBundles()) {
            if (symbolicName.equals(b.getSymbolicName())) {
                target = b;
            }
        }
        if (target == null) {
            throw new BundleException("no bundle " + symbolicName + " is installed");
        }
        try (java.io.InputStream in = java.nio.file.Files.newInputStream(jar)) {
            target.update(in);
        }
        java.util.concurrent.CountDownLatch refreshed = new java.util.concurrent.CountDownLatch(1);
        framework.adapt(org.osgi.framework.wiring.FrameworkWiring.class)
                .refreshBundles(List.of(target), event -> refreshed.countDown());
        try {
            refreshed.await(10, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Every registered service of {@code type}, in ranking order. */
    public <T> List<T> services(Class<T> type) {
        List<T> out = new ArrayList<>();
        try {
            for (ServiceReference<T> ref : context().getServiceReferences(type, null)) {
                T service = context().getService(ref);
                if (service != null) {
                    out.add(service);
                }
            }
        } catch (InvalidSyntaxException impossible) {
            throw new IllegalStateException(impossible);
        }
        return out;
    }

    /** Stops every bundle and the framework; waits up to {@code timeoutMillis}. */
    public void stop(long timeoutMillis) {
        try {
            framework.stop();
            framework.waitForStop(timeoutMillis);
        } catch (BundleException | InterruptedException e) {
            LOG.log(System.Logger.Level.WARNING, "OSGi framework did not stop cleanly: " + e.getMessage());
        }
    }
}
