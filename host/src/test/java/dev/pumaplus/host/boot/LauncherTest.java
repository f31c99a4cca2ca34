/*
 * Claims about the launcher as a process: it boots Felix and a (stand-in) shepherd, prints the runtime
 * contract's stdout lines, serves /stats, stops cleanly on SIGTERM, and fails loudly when boot fails.
 */
package dev.pumaplus.host.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class LauncherTest {

    private static final Path FAKE_GEM = Path.of("src/test/resources/fake-gem").toAbsolutePath();

    @TempDir
    Path tmp;

    private Process host;
    private final BlockingQueue<String> stdout = new LinkedBlockingQueue<>();
    private final StringBuffer stderr = new StringBuffer();
    private Thread stderrPump;

    private void launch(String mode) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--sun-misc-unsafe-memory-access=allow", "--enable-native-access=ALL-UNNAMED",
                "-Djava.io.tmpdir=" + tmp,
                "-cp", System.getProperty("java.class.path"),
                "dev.pumaplus.host.boot.Launcher", "--ruby", "ruby", "--gem", FAKE_GEM.toString(), "--", mode));
        host = new ProcessBuilder(command).start();
        pump(host.getInputStream(), line -> stdout.add(line));
        stderrPump = pump(host.getErrorStream(), line -> stderr.append(line).append('\n'));
    }

    /** Everything the host wrote to stderr, once it has exited: the pump has read to the end of the pipe. */
    private String stderrAfterExit() throws InterruptedException {
        stderrPump.join(10_000);
        return stderr.toString();
    }

    private static Thread pump(java.io.InputStream in, java.util.function.Consumer<String> sink) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    sink.accept(line);
                }
            } catch (IOException ignored) {
                // process gone
            }
        });
        t.setDaemon(true);
        t.start();
        return t;
    }

    private String awaitLine(String prefix) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            String line = stdout.poll(100, TimeUnit.MILLISECONDS);
            if (line != null && line.startsWith(prefix)) {
                return line;
            }
        }
        throw new AssertionError("no line starting with '" + prefix + "'; stderr:\n" + stderr);
    }

    @AfterEach
    void kill() {
        if (host != null && host.isAlive()) {
            host.descendants().forEach(ProcessHandle::destroyForcibly);
            host.destroyForcibly();
        }
    }

    @Test
    void bootsPrintsTheContractLinesServesStatsAndStopsCleanlyOnSigterm() throws Exception {
        launch("serve");
        String control = awaitLine("puma-plus: control app on http://127.0.0.1:");
        Matcher t = Pattern.compile("^puma-plus: control app token: ([0-9a-f]{32}) \\(generated at boot\\)$")
                .matcher(awaitLine("puma-plus: control app token: "));
        assertTrue(t.find(), "no token configured: one is generated and printed");
        assertEquals("puma-plus: ready, 2 slots", awaitLine("puma-plus: ready"));
        Matcher m = Pattern.compile("http://127\\.0\\.0\\.1:(\\d+)$").matcher(control);
        assertTrue(m.find(), control);
        String statsUrl = "http://127.0.0.1:" + m.group(1) + "/stats";
        HttpResponse<String> refused = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create(statsUrl)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(403, refused.statusCode(), "the generated token is required");
        HttpResponse<String> stats = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create(statsUrl + "?token=" + t.group(1))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, stats.statusCode());
        JsonNode json = new ObjectMapper().readTree(stats.body());
        assertEquals(1, json.get("booted_workers").asInt());
        assertEquals(2, json.get("worker_status").get(0).get("last_status").get("pool_capacity").asInt());
        try (Stream<Path> dirs = Files.list(tmp)) {
            Path privateDir = dirs.filter(p -> p.getFileName().toString().startsWith("puma-plus-")).findFirst().orElseThrow();
            assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(privateDir)));
        }

        host.destroy(); // SIGTERM
        assertTrue(host.waitFor(30, TimeUnit.SECONDS), "host stopped");
        assertEquals(0, host.exitValue(), "stderr:\n" + stderr);
        try (Stream<Path> left = Files.list(tmp)) {
            assertEquals(List.of(), left.filter(p -> p.getFileName().toString().startsWith("puma-plus-")).toList(),
                    "the private directory is removed");
        }
    }

    @Test
    void shepherdExitingBeforeItsConfigurationEndsTheHostWithItsStatus() throws Exception {
        launch("die-early");
        assertTrue(host.waitFor(30, TimeUnit.SECONDS));
        assertEquals(3, host.exitValue());
        String err = stderrAfterExit();
        assertTrue(err.contains("puma-plus: shepherd exited (status 3) before sending its configuration"), err);
    }

    @Test
    void bundleThatCannotStartEndsTheHostWithStatusOneAndNamesTheBundle() throws Exception {
        launch("missing-bundle");
        assertTrue(host.waitFor(30, TimeUnit.SECONDS));
        assertEquals(1, host.exitValue());
        String err = stderrAfterExit();
        assertTrue(err.contains("puma-plus: bundle no-such-bundle failed to start: "), err);
    }

    @Test
    void shepherdDyingAfterBootStopsTheHostWithStatusOne() throws Exception {
        launch("die-after-boot");
        awaitLine("puma-plus: ready");
        assertTrue(host.waitFor(30, TimeUnit.SECONDS));
        assertEquals(1, host.exitValue());
        String err = stderrAfterExit();
        assertTrue(err.contains("puma-plus: shepherd exited unexpectedly (status 5)"), err);
    }
}
