/*
 * Computes org.osgi.framework.system.packages.extra at start-up: the packages the host's class path offers
 * to bundles (Netty, Jackson, the host's wire codec and SPI), so exactly one copy of each exists.
 */
package dev.pumaplus.host.framework;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.stream.Stream;

/**
 * Reads the {@code Export-Package} header of every jar in the host's lib directory and turns it into a
 * system-packages list: {@code pkg;version="x",...}, directives ({@code uses:=}) and other attributes
 * dropped, first export of a package wins. The OSGi framework jar itself is skipped (the system bundle
 * exports its own API).
 *
 * <p>Why read manifests at start-up instead of generating a list at build time: the jars in
 * {@code gem/vendor/java/lib/} are the ones actually on the class path, so the list can never drift from
 * them (an upgraded Netty jar brings its own versions), and Netty, Jackson and our host jar already carry
 * exact Export-Package headers written by their builds. Cost: one manifest read per jar, ~10 ms.
 * Stateless.
 */
public final class ExportedPackages {

    private static final String FRAMEWORK_BSN = "org.apache.felix.framework";

    private ExportedPackages() {
    }

    /** The list for the jars in {@code libDir}, in file-name order. */
    public static String fromDirectory(Path libDir) throws IOException {
        List<Path> jars;
        try (Stream<Path> files = Files.list(libDir)) {
            jars = files.filter(p -> p.getFileName().toString().endsWith(".jar")).sorted().toList();
        }
        return fromJars(jars);
    }

    /**
     * The list for the entries of {@code java.class.path}: jars, and class directories holding a
     * {@code META-INF/MANIFEST.MF} (bnd writes one into target/classes). For running from a build tree.
     */
    public static String fromClassPath() throws IOException {
        List<Path> entries = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path", "").split(java.io.File.pathSeparator)) {
            if (!entry.isEmpty()) {
                entries.add(Path.of(entry));
            }
        }
        return fromJars(entries);
    }

    /** The list for {@code jars} (or class directories); entries without a manifest are skipped. */
    static String fromJars(List<Path> jars) throws IOException {
        Map<String, String> packages = new LinkedHashMap<>();
        for (Path jar : jars) {
            Manifest manifest = manifestOf(jar);
            if (manifest != null) {
                Attributes main = manifest.getMainAttributes();
                String bsn = main.getValue("Bundle-SymbolicName");
                if (bsn != null && bsn.split(";")[0].trim().equals(FRAMEWORK_BSN)) {
                    continue;
                }
                String exports = main.getValue("Export-Package");
                if (exports != null) {
                    parse(exports, packages);
                }
            }
        }
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, String> e : packages.entrySet()) {
            if (!out.isEmpty()) {
                out.append(',');
            }
            out.append(e.getKey());
            if (e.getValue() != null) {
                out.append(";version=\"").append(e.getValue()).append('"');
            }
        }
        return out.toString();
    }

    private static Manifest manifestOf(Path entry) throws IOException {
        if (Files.isDirectory(entry)) {
            Path mf = entry.resolve("META-INF").resolve("MANIFEST.MF");
            if (!Files.isRegularFile(mf)) {
                return null;
            }
            try (var in = Files.newInputStream(mf)) {
                return new Manifest(in);
            }
        }
        if (!Files.isRegularFile(entry) || !entry.getFileName().toString().endsWith(".jar")) {
            return null;
        }
        try (JarFile file = new JarFile(entry.toFile())) {
            return file.getManifest();
        }
    }

    /** Adds each package of an Export-Package header to {@code into} with its version (or null). */
    static void parse(String header, Map<String, String> into) {
        for (String clause : split(header, ',')) {
            List<String> names = new ArrayList<>();
            String version = null;
            for (String part : split(clause, ';')) {
                String p = part.trim();
                if (p.isEmpty()) {
                    continue;
                }
                int eq = p.indexOf('=');
                if (eq < 0) {
                    names.add(p);
                } else if (eq > 0 && p.charAt(eq - 1) != ':' && p.substring(0, eq).trim().equals("version")) {
                    version = unquote(p.substring(eq + 1).trim());
                }
            }
            for (String name : names) {
                into.putIfAbsent(name, version);
            }
        }
    }

    private static String unquote(String s) {
        return s.length() >= 2 && s.startsWith("\"") && s.endsWith("\"") ? s.substring(1, s.length() - 1) : s;
    }

    /** Splits on {@code separator} outside double quotes. */
    private static List<String> split(String s, char separator) {
        List<String> out = new ArrayList<>();
        boolean quoted = false;
        int start = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"') {
                quoted = !quoted;
            } else if (c == separator && !quoted) {
                out.add(s.substring(start, i));
                start = i + 1;
            }
        }
        out.add(s.substring(start));
        return out;
    }
}
