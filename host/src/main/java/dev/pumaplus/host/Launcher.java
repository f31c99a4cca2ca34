/*
 * The host's entry point and the root of the process tree: creates the private link directory, listens on
 * link.sock, starts Felix, spawns the Ruby shepherd, waits for its CONFIG, starts the protocol bundles and
 * the control app, and stops everything in order on SIGTERM/SIGINT (docs/ARCHITECTURE.md).
 */
package dev.pumaplus.host;

import dev.pumaplus.spi.HostSettings;
import dev.pumaplus.spi.Listener;
import dev.pumaplus.spi.LoadSignals;
import dev.pumaplus.spi.RequestQueue;
import dev.pumaplus.spi.WorkerPool;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.osgi.framework.BundleException;

/**
 * {@code java dev.pumaplus.host.Launcher --ruby RUBY --gem GEMDIR -- USER_ARGS...}
 *
 * <p>Boot: private dir (0700) → link server → Felix → shepherd process → HELLO(role 1) + CONFIG →
 * HostSettings and RequestQueue services → bundles from {@code <gem>/vendor/java/bundles/<name>.jar} →
 * control app → "ready" once workers × threads links are live. Each stdout line of the runtime contract
 * is printed and flushed on its own.
 *
 * <p>Packages for bundles: {@code org.osgi.framework.system.packages.extra} is the union of the
 * Export-Package headers of every jar in the host's lib directory (see {@link ExportedPackages}), so Netty,
 * Jackson and the host's wire/SPI packages exist once, on the class path, and a ByteBuf that crosses from
 * a bundle to the host is the same class on both sides. They are never installed as bundles.
 *
 * <p>Stop (SIGTERM/SIGINT, handled with {@code sun.misc.Signal} so the exit status is ours): every
 * {@link Listener} service stops accepting → wait for queue depth 0 and no busy link (at most
 * {@code shutdown_timeout} s; then the rest is answered 503) → GOAWAY(0) to the shepherd and workers →
 * wait for the shepherd to exit (10 s, then kill) → stop Felix (bundles stop their own event loops) →
 * shut the host's event loops down → delete the private dir → exit 0. A shepherd that dies on its own
 * after boot makes the host stop with status 1 (supervision comes later).
 *
 * <p>Threading: the main thread boots and then waits for a stop request; link callbacks arrive on the
 * host's event loops and only complete futures or print.
 */
public final class Launcher {

    private static final long SHEPHERD_EXIT_WAIT_MS = 10_000;

    private final Path ruby;
    private final Path gem;
    private final List<String> userArgs;
    private final PrintStream out = System.out;
    private final Instant startedAt = Instant.now();

    private final CompletableFuture<String> config = new CompletableFuture<>();
    private final CompletableFuture<Integer> stop = new CompletableFuture<>();
    /** What asked the host to stop, for the log line: a signal name, or why the host stops itself. */
    private volatile String stopCause = "shepherd exited";
    private volatile boolean stopping;

    private final Object readyLock = new Object();
    private int expectedSlots = -1;
    private boolean booted;
    private boolean readyAnnounced;
    private int liveSlots;

    private Path privateDir;
    private HostTransport transport;
    private Dispatcher dispatcher;
    private LinkServer linkServer;
    private EmbeddedFelix felix;
    private Process shepherd;
    private ControlApp controlApp;
    private ShepherdConfig settings;
    private RequestLog requestLog;
    /** The shepherd's link and its HELLO, for DESIRED_WORKERS (the WorkerPool service). */
    private volatile io.netty.channel.Channel shepherdLink;
    private volatile dev.pumaplus.wire.Hello shepherdHello;

    Launcher(Path ruby, Path gem, List<String> userArgs) {
        this.ruby = ruby;
        this.gem = gem;
        this.userArgs = userArgs;
    }

    /** Runs the host; exits the JVM with the host's status. */
    public static void main(String[] args) {
        Launcher launcher;
        try {
            launcher = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("puma-plus: " + e.getMessage());
            System.err.println("usage: java dev.pumaplus.host.Launcher --ruby RUBY --gem GEMDIR -- [puma-plus options]");
            System.exit(2);
            return;
        }
        System.exit(launcher.run());
    }

    static Launcher parse(String[] args) {
        Path ruby = null;
        Path gem = null;
        List<String> user = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--ruby" -> ruby = Path.of(value(args, ++i, "--ruby"));
                case "--gem" -> gem = Path.of(value(args, ++i, "--gem"));
                case "--" -> {
                    user.addAll(Arrays.asList(args).subList(i + 1, args.length));
                    i = args.length;
                }
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (ruby == null || gem == null) {
            throw new IllegalArgumentException("--ruby and --gem are required");
        }
        return new Launcher(ruby, gem, List.copyOf(user));
    }

    private static String value(String[] args, int i, String flag) {
        if (i >= args.length) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return args[i];
    }

    /** Boots, serves until stopped, and returns the exit status. */
    int run() {
        installSignalHandlers();
        Runtime.getRuntime().addShutdownHook(new Thread(this::emergencyCleanup, "puma-plus-cleanup"));
        int status;
        try {
            status = boot();
            if (status == 0) {
                status = stop.join();
            }
            if (status != 0 && shepherd != null && shepherd.isAlive()) {
                shepherd.destroy(); // a failed boot: nothing to drain, stop the shepherd now
            }
        } catch (Exception e) {
            System.err.println("puma-plus: " + describe(e));
            status = 1;
            if (shepherd != null && shepherd.isAlive()) {
                shepherd.destroy();
            }
        }
        shutdown();
        return status;
    }

    /** Returns 0 once serving, else the status to exit with (after {@link #shutdown}). */
    private int boot() throws Exception {
        privateDir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "puma-plus-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.setPosixFilePermissions(privateDir, PosixFilePermissions.fromString("rwx------"));

        transport = HostTransport.select();
        dispatcher = new Dispatcher(PooledByteBufAllocator.DEFAULT);
        dispatcher.onLiveLinksChanged(this::liveSlotsChanged);
        dispatcher.metrics().start(transport.group.next(), dispatcher::submitted);
        // The first CONFIG wins; a second shepherd (hot restart) is a later issue.
        linkServer = new LinkServer(transport, dispatcher, (link, hello, json) -> {
            shepherdLink = link;
            shepherdHello = hello;
            config.complete(json);
        });
        Path socket = privateDir.resolve("link.sock");
        linkServer.bind(socket);

        felix = EmbeddedFelix.start(privateDir.resolve("felix"), systemPackages());

        List<String> command = new ArrayList<>();
        command.add(ruby.toString());
        command.add("-I" + gem.resolve("lib"));
        command.add(gem.resolve("exe").resolve("puma-plus-shepherd").toString());
        command.addAll(userArgs);
        ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
        builder.environment().put("PUMA_PLUS_LINK", socket.toString());
        shepherd = builder.start();
        CompletableFuture<Process> exited = shepherd.onExit();

        CompletableFuture.anyOf(config, exited, stop).join();
        if (!config.isDone()) {
            if (stop.isDone()) {
                return stop.join();
            }
            int code = shepherd.exitValue();
            System.err.println("puma-plus: shepherd exited (status " + code + ") before sending its configuration");
            return Math.max(1, code);
        }
        settings = ShepherdConfig.parse(config.join(), url -> announce("puma-plus: listening on " + url));
        int workers = (int) Math.max(1, settings.number("workers", 1));
        int threads = (int) Math.max(1, settings.number("threads", 1));
        dispatcher.serverTiming(settings.flag("server_timing", false));
        double shedMs = settings.decimal("shed_wait_limit_ms", Double.NaN);
        dispatcher.shedding(Double.isNaN(shedMs) ? Double.POSITIVE_INFINITY : shedMs * 1e6);
        String healthPath = settings.string("health_check_path", null);
        dispatcher.healthCheck(healthPath == null || healthPath.isEmpty() ? null : healthPath,
                "host".equals(settings.string("health_check_answer", "app")));
        if (settings.flag("log_requests", false)) {
            requestLog = new RequestLog(out);
            dispatcher.requestLog(requestLog);
        }

        felix.context().registerService(HostSettings.class, settings, null);
        felix.context().registerService(RequestQueue.class, dispatcher, null);
        felix.context().registerService(LoadSignals.class, new HostLoadSignals(dispatcher), null);
        felix.context().registerService(WorkerPool.class, new ShepherdWorkerPool(dispatcher, shepherdLink,
                Math.min(LinkHandshake.VERSION, shepherdHello.version()), threads, workers), null);
        for (String name : settings.strings("bundles")) {
            Path jar = gem.resolve("vendor").resolve("java").resolve("bundles").resolve(name + ".jar");
            try {
                if (!Files.isRegularFile(jar)) {
                    throw new BundleException("no such file " + jar);
                }
                felix.installAndStart(jar);
            } catch (BundleException | RuntimeException e) {
                System.err.println("puma-plus: bundle " + name + " failed to start: " + describe(e));
                return 1;
            }
        }

        String controlUrl = settings.string("control_url", null);
        if (controlUrl != null && !controlUrl.isEmpty()) {
            controlApp = new ControlApp(dispatcher, settings.string("control_token", null), workers, threads, startedAt);
            controlApp.felix(felix);
            InetSocketAddress bound = controlApp.bind(transport, controlUrl);
            announce("puma-plus: control app on http://" + hostOf(controlUrl) + ":" + bound.getPort());
        }

        exited.thenAccept(p -> {
            if (!stopping) {
                System.err.println("puma-plus: shepherd exited unexpectedly (status " + p.exitValue() + "), shutting down");
                stop.complete(1);
            }
        });
        synchronized (readyLock) {
            expectedSlots = workers * threads;
            booted = true;
        }
        liveSlotsChanged(-1);
        return 0;
    }

    /** After a live-link change (the argument is not used) and once at the end of boot (-1). */
    private void liveSlotsChanged(int ignored) {
        String line = null;
        synchronized (readyLock) {
            // Read the count here instead of taking the argument: links on different event loops notify
            // in either order, so a stale count (1 after 2) could arrive last and "ready" never be printed.
            // Read under readyLock, the last notification always sees the latest count.
            liveSlots = dispatcher.snapshot().live();
            if (booted && !readyAnnounced && liveSlots >= expectedSlots) {
                readyAnnounced = true;
                line = "puma-plus: ready, " + liveSlots + " slots";
            }
        }
        if (line != null) {
            announce(line);
        }
    }

    private void shutdown() {
        stopping = true;
        long timeoutNanos = settings == null ? 0 : settings.nanos("shutdown_timeout", 30);
        boolean booted = settings != null; // a boot that failed has said why; nothing to drain
        if (booted) {
            Dispatcher.Snapshot now = dispatcher.snapshot();
            announce("puma-plus: stopping (" + stopCause + "): no new connections; finishing " + now.depth()
                    + " queued and " + now.busy() + " running requests (up to " + (timeoutNanos / 1_000_000_000L)
                    + " s)");
        }
        if (felix != null) {
            for (Listener listener : felix.services(Listener.class)) {
                try {
                    listener.stopAccepting();
                } catch (RuntimeException e) {
                    System.err.println("puma-plus: a listener failed to stop accepting: " + e);
                }
            }
        }
        if (dispatcher != null && !dispatcher.drain(timeoutNanos, transport.group.next())) {
            System.err.println("puma-plus: shutdown_timeout reached, unfinished requests answered 503");
        }
        if (linkServer != null) {
            linkServer.goawayAll("shutdown");
        }
        if (shepherd != null) {
            try {
                shepherd.onExit().get(SHEPHERD_EXIT_WAIT_MS, TimeUnit.MILLISECONDS);
            } catch (TimeoutException | ExecutionException | InterruptedException e) {
                System.err.println("puma-plus: shepherd did not exit within 10 s, killing it");
                shepherd.descendants().forEach(ProcessHandle::destroyForcibly);
                shepherd.destroyForcibly();
                shepherd.onExit().completeOnTimeout(null, 2, TimeUnit.SECONDS).join();
            }
        }
        if (controlApp != null) {
            controlApp.close();
        }
        if (linkServer != null) {
            linkServer.close();
        }
        if (felix != null) {
            felix.stop(10_000);
        }
        if (dispatcher != null) {
            dispatcher.metrics().stop();
        }
        if (transport != null) {
            transport.shutdown();
        }
        if (requestLog != null) {
            requestLog.drain(2_000); // every request line before "stopped"
        }
        deletePrivateDir();
        if (booted) {
            announce("puma-plus: stopped");
        }
    }

    /** Last resort when the JVM exits without {@link #shutdown} (e.g. SIGHUP): no orphans, no litter. */
    private void emergencyCleanup() {
        if (stopping) {
            return;
        }
        Process p = shepherd;
        if (p != null && p.isAlive()) {
            p.destroy();
        }
        deletePrivateDir();
    }

    private void deletePrivateDir() {
        Path dir = privateDir;
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            System.err.println("puma-plus: could not delete " + dir + ": " + e.getMessage());
        }
    }

    private void installSignalHandlers() {
        for (String name : new String[] {"TERM", "INT"}) {
            try {
                sun.misc.Signal.handle(new sun.misc.Signal(name), signal -> {
                    stopCause = "SIG" + signal.getName();
                    stop.complete(0);
                });
            } catch (IllegalArgumentException unsupported) {
                // e.g. INT is ignored when started in the background; the shutdown hook still cleans up
            }
        }
    }

    /** Prints one line of the runtime contract on stdout and flushes it. */
    private void announce(String line) {
        synchronized (out) {
            out.println(line);
            out.flush();
        }
    }

    /**
     * The Export-Package headers of the jars beside the host jar (gem/vendor/java/lib); when running from
     * a build tree (target/classes, tests), of the class path entries instead.
     */
    private static String systemPackages() throws IOException, URISyntaxException {
        Path self = Path.of(Launcher.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        return Files.isRegularFile(self)
                ? ExportedPackages.fromDirectory(self.getParent())
                : ExportedPackages.fromClassPath();
    }

    private static String hostOf(String url) {
        String host = URI.create(url).getHost();
        return host == null ? "127.0.0.1" : host;
    }

    private static String describe(Throwable e) {
        StringBuilder text = new StringBuilder(String.valueOf(e.getMessage()));
        for (Throwable cause = e.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
            text.append(": ").append(cause.getMessage() != null ? cause.getMessage() : cause.getClass().getName());
        }
        return text.toString();
    }

}
