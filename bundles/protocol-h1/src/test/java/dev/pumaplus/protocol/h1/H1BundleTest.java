/*
 * Claims about the protocol-h1 bundle as the host runs it (accept → parse → queue → respond inside
 * embedded Felix, with the host's BundleExtender): its bnd manifest resolves against Netty and the SPI
 * exported by the system bundle and names its factory, its endpoint binds and announces, serves through the
 * registered RequestQueue, and stops cleanly.
 */
package dev.pumaplus.protocol.h1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pumaplus.host.lifecycle.BundleExtender;
import dev.pumaplus.spi.EventLoops;
import dev.pumaplus.spi.HostSettings;
import dev.pumaplus.spi.Listener;
import dev.pumaplus.spi.RequestQueue;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.Bundle;
import org.osgi.framework.Constants;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.launch.FrameworkFactory;

/**
 * Runs in the test phase, before the jar is packaged: the bundle is zipped from target/classes, which holds
 * exactly what the jar will (classes and the MANIFEST.MF bnd wrote in process-classes).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class H1BundleTest {

    @TempDir
    Path tmp;
    private Framework framework;
    private BundleExtender extender;

    @BeforeEach
    void startFelix() throws Exception {
        Map<String, String> config = new HashMap<>();
        config.put(Constants.FRAMEWORK_STORAGE, tmp.resolve("felix").toString());
        config.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        config.put(Constants.FRAMEWORK_SYSTEMPACKAGES_EXTRA, classPathExports());
        config.put("felix.log.level", "1");
        framework = ServiceLoader.load(FrameworkFactory.class).findFirst().orElseThrow().newFramework(config);
        framework.init();
        framework.start();
        extender = new BundleExtender(framework.getBundleContext());
        extender.open();
    }

    @AfterEach
    void stopFelix() throws Exception {
        framework.stop();
        framework.waitForStop(10_000);
    }

    @Test
    void bundleResolvesStartsServesThroughTheHostQueueAndStopsCleanly() throws Exception {
        H1ServerTest.MapSettings settings = new H1ServerTest.MapSettings(
                Map.of("binds", List.of("tcp://127.0.0.1:0"), "persistent_timeout", 20L));
        framework.getBundleContext().registerService(HostSettings.class, settings, null);
        framework.getBundleContext().registerService(RequestQueue.class, new H1ServerTest.EchoQueue(), null);
        framework.getBundleContext().registerService(EventLoops.class, TestEventLoops.INSTANCE, null);

        Bundle bundle = framework.getBundleContext().installBundle(bundleJar().toUri().toString());
        bundle.start();
        assertEquals(Bundle.ACTIVE, bundle.getState());
        assertEquals(1, settings.announced.size());
        String url = settings.announced.get(0);
        int port = Integer.parseInt(url.substring(url.lastIndexOf(':') + 1));
        assertTrue(port > 0, url);
        assertNotNull(framework.getBundleContext().getServiceReference(Listener.class),
                "the bundle registers its Listener for the host's graceful stop");

        try (Socket socket = new Socket("127.0.0.1", port)) {
            OutputStream out = socket.getOutputStream();
            out.write("GET /osgi HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            String response = readAll(socket.getInputStream());
            assertTrue(response.startsWith("HTTP/1.1 200 OK\r\n"), response);
            assertTrue(response.endsWith("echo:/osgi:0"), response);
        }

        bundle.stop();
        assertNull(framework.getBundleContext().getServiceReference(Listener.class));
        assertThrows(ConnectException.class, () -> new Socket("127.0.0.1", port).close(),
                "stopping the bundle closes its listener");
    }

    @Test
    void startFailsNamingTheMissingHostService() throws Exception {
        Bundle bundle = framework.getBundleContext().installBundle(bundleJar().toUri().toString());
        bundle.start();
        RuntimeException refused = extender.failure(bundle);
        assertNotNull(refused, "the host refuses the bundle's endpoint (the launcher then fails its start)");
        assertTrue(refused.getMessage().contains("HostSettings"), refused.getMessage());
        assertNull(framework.getBundleContext().getServiceReference(Listener.class));
    }

    private static String readAll(InputStream in) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        in.transferTo(buf);
        return buf.toString(StandardCharsets.ISO_8859_1);
    }

    /** Zips target/classes (with bnd's manifest first, as a jar must have it) into a bundle jar. */
    private Path bundleJar() throws IOException {
        Path classes = Path.of(H1ProtocolFactory.class.getProtectionDomain().getCodeSource().getLocation().getPath());
        Path manifestFile = classes.resolve("META-INF/MANIFEST.MF");
        assertTrue(Files.isRegularFile(manifestFile), "bnd-process wrote " + manifestFile);
        Manifest manifest;
        try (InputStream in = Files.newInputStream(manifestFile)) {
            manifest = new Manifest(in);
        }
        Path jar = tmp.resolve("protocol-h1.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest);
                Stream<Path> files = Files.walk(classes)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                String name = classes.relativize(file).toString().replace('\\', '/');
                if (name.equals("META-INF/MANIFEST.MF")) {
                    continue;
                }
                out.putNextEntry(new ZipEntry(name));
                Files.copy(file, out);
                out.closeEntry();
            }
        }
        return jar;
    }

    /**
     * What the host exports through the system bundle: every Export-Package of the class path (Netty's jars
     * and the host's SPI), versions kept, directives dropped; the OSGi framework's own jar skipped.
     */
    private static String classPathExports() throws IOException {
        Map<String, String> exports = new LinkedHashMap<>();
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path path = Path.of(entry);
            Manifest manifest = null;
            if (Files.isDirectory(path) && Files.isRegularFile(path.resolve("META-INF/MANIFEST.MF"))) {
                try (InputStream in = Files.newInputStream(path.resolve("META-INF/MANIFEST.MF"))) {
                    manifest = new Manifest(in);
                }
            } else if (Files.isRegularFile(path) && entry.endsWith(".jar")) {
                try (JarFile jar = new JarFile(path.toFile())) {
                    manifest = jar.getManifest();
                }
            }
            if (manifest == null) {
                continue;
            }
            String bsn = manifest.getMainAttributes().getValue("Bundle-SymbolicName");
            String header = manifest.getMainAttributes().getValue("Export-Package");
            if (header == null || (bsn != null && (bsn.startsWith("org.apache.felix.framework")
                    || bsn.startsWith("dev.pumaplus.protocol")))) {
                continue;
            }
            for (String clause : splitClauses(header)) {
                String[] parts = clause.split(";");
                String version = null;
                for (String p : parts) {
                    String t = p.trim();
                    if (t.startsWith("version=")) {
                        version = t.substring("version=".length()).replace("\"", "");
                    }
                }
                exports.putIfAbsent(parts[0].trim(), version);
            }
        }
        List<String> out = new ArrayList<>();
        exports.forEach((pkg, version) -> out.add(version == null ? pkg : pkg + ";version=\"" + version + "\""));
        return String.join(",", out);
    }

    private static List<String> splitClauses(String header) {
        List<String> clauses = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean quoted = false;
        for (char c : header.toCharArray()) {
            if (c == '"') {
                quoted = !quoted;
            }
            if (c == ',' && !quoted) {
                clauses.add(current.toString());
                current.setLength(0);
            } else {
                current.append(c);
            }
        }
        clauses.add(current.toString());
        return clauses;
    }
}
