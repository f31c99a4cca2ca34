/*
 * The host's entry point and the root of the process tree: creates the private link directory, listens on
 * link.sock, starts Felix, spawns the Ruby shepherd, waits for its CONFIG, starts the protocol bundles and
 * the control app, and stops everything in order on SIGTERM/SIGINT (docs/ARCHITECTURE.md). It outlives
 * shepherd generations: USR2 (hot restart, config reload) starts the next one while the listeners stay open.
 */
package dev.pumaplus.host;

import dev.pumaplus.spi.HostSettings;
import dev.pumaplus.spi.Listener;
import dev.pumaplus.spi.LoadSignals;
import dev.pumaplus.spi.RequestQueue;
import dev.pumaplus.spi.WorkerPool;
import dev.pumaplus.wire.Frame;
import dev.pumaplus.wire.FrameType;
import dev.pumaplus.wire.ExtraSlots;
import dev.pumaplus.wire.WorkerCount;
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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
 * <p>Lifecycle signals, as puma's (docs/ARCHITECTURE.md, "Lifecycle"): USR2 = hot restart (a new shepherd
 * generation reads the config again, boots, its workers dial in; then the old generation gets GOAWAY(0),
 * drains its running requests and exits; the queue holds requests meanwhile, so none fails), USR1 = phased
 * restart (PHASED_RESTART to the shepherd: workers replaced one at a time), TTIN/TTOU = one worker process
 * more/less (WORKER_COUNT to the shepherd). The Ractor and thread actuators ask for slots beyond threads
 * (EXTRA_SLOTS to the shepherd, and again to each new generation after its CONFIG). The control app's
 * /restart, /phased-restart, /stop and /halt do the same.
 *
 * <p>Threading: the main thread boots and then waits for a stop request; link callbacks arrive on the
 * host's event loops and only complete futures or print; restarts run one at a time on the lifecycle
 * thread, never on a signal or event-loop thread.
 */
public final class Launcher {

    private static final long SHEPHERD_EXIT_WAIT_MS = 10_000;
    /** Beyond worker_boot_timeout, how long a new generation may take to send CONFIG and dial in. */
    private static final long GENERATION_BOOT_SLACK_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final Path ruby;
    private final Path gem;
    private final List<String> userArgs;
    private volatile PrintStream out = System.out;
    private final Instant startedAt = Instant.now();

    private final CompletableFuture<Integer> stop = new CompletableFuture<>();
    /** Every shepherd generation still alive, the current one included. */
    private final List<ShepherdGeneration> generations = new CopyOnWriteArrayList<>();
    /** The generation whose workers take new requests. */
    private volatile ShepherdGeneration current;
    /** Runs restarts one at a time, off the signal and event-loop threads. */
    private final ExecutorService lifecycle = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "puma-plus-lifecycle");
        t.setDaemon(true);
        return t;
    });
    /** A halt: stop without draining (control app /halt). */
    private volatile boolean halting;
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
    private Admission admission;
    private RequestReporting reporting;
    private LinkServer linkServer;
    private EmbeddedFelix felix;
    private ControlApp controlApp;
    private volatile ShepherdConfig settings;
    private Path pidfile;
    private Path statePath;
    private boolean jsonLog;
    private volatile RequestLog requestLog;
    /** The worker process count TTIN/TTOU adjust (starts at the CONFIG's workers). */
    private volatile int desiredWorkers;
    /** Slots beyond threads the Ractor or thread actuator asked for (EXTRA_SLOTS); starts at 0. */
    private volatile int desiredExtraSlots;

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
            if (status != 0) {
                destroyShepherds(); // a failed boot: nothing to drain, stop the shepherd now
            }
        } catch (Exception e) {
            System.err.println("puma-plus: " + describe(e));
            status = 1;
            destroyShepherds();
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
        dispatcher = new Dispatcher(NanoClock.SYSTEM);
        reporting = new RequestReporting(dispatcher.metrics());
        admission = new Admission(dispatcher, PooledByteBufAllocator.DEFAULT, reporting);
        dispatcher.onLiveLinksChanged(this::liveSlotsChanged);
        dispatcher.metrics().start(transport.group.next(), admission::submitted);
        // Each CONFIG goes to the generation its HELLO names (hot restart: two shepherds at once).
        linkServer = new LinkServer(transport, dispatcher, reporting, this::shepherdConfigured);
        Path socket = privateDir.resolve("link.sock");
        linkServer.bind(socket);

        felix = EmbeddedFelix.start(privateDir.resolve("felix"), systemPackages());

        ShepherdGeneration first = spawnGeneration(1);
        current = first;
        CompletableFuture<Process> exited = first.process.onExit();

        CompletableFuture.anyOf(first.config, exited, stop).join();
        if (!first.config.isDone()) {
            if (stop.isDone()) {
                return stop.join();
            }
            int code = first.process.exitValue();
            System.err.println("puma-plus: shepherd exited (status " + code + ") before sending its configuration");
            return Math.max(1, code);
        }
        settings = ShepherdConfig.parse(first.config.join(), url -> announce("puma-plus: listening on " + url));
        first.settings(settings);
        applyProcessSettings(settings);
        int workers = (int) Math.max(1, settings.number("workers", 1));
        int threads = (int) Math.max(1, settings.number("threads", 1));
        reporting.serverTiming(settings.flag("server_timing", false));
        applyRequestLog(settings);
        applyAdmission(settings);
        announce("puma-plus: host pid " + ProcessHandle.current().pid() + ", Java " + Runtime.version().feature()
                + ", " + transport.name + " transport; shepherd generation 1");
        announce("puma-plus: environment " + settings.string("environment", "development") + ", " + workers
                + " worker" + (workers == 1 ? "" : "s") + " x " + threads + " thread" + (threads == 1 ? "" : "s")
                + " = " + (workers * threads) + " slot" + (workers * threads == 1 ? "" : "s"));

        felix.context().registerService(HostSettings.class, settings, null);
        felix.context().registerService(RequestQueue.class, admission, null);
        felix.context().registerService(LoadSignals.class, new HostLoadSignals(dispatcher), null);
        felix.context().registerService(WorkerPool.class, new ShepherdWorkerPool(dispatcher, this::scaleWorkers,
                this::scaleExtraSlots, threads, workers), null);
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
            controlApp.actions(controlActions());
            InetSocketAddress bound = controlApp.bind(transport, controlUrl);
            announce("puma-plus: control app on http://" + hostOf(controlUrl) + ":" + bound.getPort());
            writeState("tcp://" + hostOf(controlUrl) + ":" + bound.getPort());
        } else {
            writeState(null);
        }

        watchExit(first);
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
        long timeoutNanos = settings == null || halting ? 0 : settings.nanos("shutdown_timeout", 30);
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
        long exitWaitMs = SHEPHERD_EXIT_WAIT_MS
                + (settings == null ? 0 : settings.nanos("worker_shutdown_timeout", 30) / 1_000_000);
        for (ShepherdGeneration generation : generations) {
            if (!generation.awaitExit(exitWaitMs)) {
                System.err.println("puma-plus: shepherd generation " + generation.number + " did not exit within "
                        + exitWaitMs / 1000 + " s; killed it");
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
        deleteQuietly(pidfile);
        deleteQuietly(statePath);
        if (booted) {
            announce("puma-plus: stopped");
        }
    }

    /** Last resort when the JVM exits without {@link #shutdown} (e.g. SIGHUP): no orphans, no litter. */
    private void emergencyCleanup() {
        if (stopping) {
            return;
        }
        destroyShepherds();
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
        handle("USR2", () -> hotRestart("SIGUSR2"));
        handle("USR1", () -> phasedRestart("SIGUSR1"));
        handle("TTIN", () -> adjustWorkers(+1, "SIGTTIN"));
        handle("TTOU", () -> adjustWorkers(-1, "SIGTTOU"));
    }

    /** Runs {@code action} on the lifecycle thread when signal {@code name} arrives (ignored before boot). */
    private void handle(String name, Runnable action) {
        try {
            sun.misc.Signal.handle(new sun.misc.Signal(name), signal -> {
                if (current != null && settings != null && !stopping) {
                    lifecycle.execute(action);
                }
            });
        } catch (IllegalArgumentException unsupported) {
            System.err.println("puma-plus: cannot handle SIG" + name + ": " + unsupported.getMessage());
        }
    }

    // --- generations ---------------------------------------------------------------------------------------

    private ShepherdGeneration spawnGeneration(int number) throws IOException {
        ShepherdGeneration generation = ShepherdGeneration.spawn(number, ruby, gem, userArgs, linkServer.path());
        generations.add(generation);
        return generation;
    }

    /** A shepherd's CONFIG arrived (on its link's event loop): hand it to the generation its HELLO names. */
    private void shepherdConfigured(io.netty.channel.Channel link, dev.pumaplus.wire.Hello hello, String json) {
        for (ShepherdGeneration generation : generations) {
            if (generation.number == hello.generation()) {
                generation.configured(link, json);
                return;
            }
        }
        System.err.println("puma-plus: CONFIG from an unknown shepherd generation " + hello.generation() + "; ignored");
        link.close();
    }

    /** The host stops (status 1) if the generation serving requests exits by itself; a retired one may. */
    private void watchExit(ShepherdGeneration generation) {
        generation.process.onExit().thenAccept(p -> {
            generations.remove(generation);
            if (!stopping && generation == current) {
                System.err.println("puma-plus: shepherd exited unexpectedly (status " + p.exitValue() + "), shutting down");
                stop.complete(1);
            }
        });
    }

    /**
     * Hot restart and config reload: a new shepherd generation reads the config file again and boots;
     * once all its slots have dialled in it becomes current, and the old generation gets GOAWAY(0), stops
     * its workers (each finishes the request it runs) and exits. A new generation that fails to configure
     * or to dial in within worker_boot_timeout (+30 s) is stopped and the old one keeps serving.
     * Listeners, the control app and protocol timeouts stay as they are. Runs on the lifecycle thread.
     */
    void hotRestart(String cause) {
        ShepherdGeneration old = current;
        int number = old.number + 1;
        announce("puma-plus: hot restart (" + cause + "): starting shepherd generation " + number
                + "; generation " + old.number + " keeps serving until it is ready");
        ShepherdGeneration next;
        try {
            next = spawnGeneration(number);
        } catch (IOException e) {
            System.err.println("puma-plus: hot restart failed: cannot start a shepherd: " + e.getMessage());
            return;
        }
        long deadline = System.nanoTime() + settings.nanos("worker_boot_timeout", 60) + GENERATION_BOOT_SLACK_NANOS;
        try {
            CompletableFuture.anyOf(next.config, next.process.onExit(), stop)
                    .get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException | InterruptedException e) {
            // handled below: no CONFIG
        }
        if (!next.config.isDone()) {
            abandon(next, old, next.process.isAlive() ? "no configuration in time"
                    : "its shepherd exited (status " + next.process.exitValue() + ") before sending its configuration");
            return;
        }
        ShepherdConfig fresh;
        try {
            fresh = ShepherdConfig.parse(next.config.join(), url -> { });
        } catch (IOException e) {
            abandon(next, old, e.getMessage());
            return;
        }
        next.settings(fresh);
        // A new generation starts with no extra slots; the actuator's count carries over to it.
        if (desiredExtraSlots > 0) {
            next.send(new ExtraSlots(desiredExtraSlots).toFrame(PooledByteBufAllocator.DEFAULT));
        }
        for (String key : new String[] {"binds", "control_url", "persistent_timeout", "first_data_timeout",
                "write_timeout", "http_content_length_limit", "bundles"}) {
            if (!fresh.strings(key).equals(settings.strings(key)) || fresh.number(key, -1) != settings.number(key, -1)
                    || !java.util.Objects.equals(fresh.string(key, null), settings.string(key, null))) {
                announce("puma-plus: " + key + " changed in the config; listeners stay as they are (stop and start to apply it)");
            }
        }
        int expected = next.expectedSlots();
        while (dispatcher.liveLinks(number) < expected) {
            if (!next.process.isAlive() || stop.isDone() || System.nanoTime() - deadline > 0) {
                abandon(next, old, next.process.isAlive() ? "its workers did not dial in within worker_boot_timeout"
                        : "its shepherd exited (status " + next.process.exitValue() + ")");
                return;
            }
            sleepQuietly(10);
        }
        settings = fresh;
        desiredWorkers = (int) Math.max(1, fresh.number("workers", 1)); // TTIN/TTOU start again from the file
        current = next;
        watchExit(next);
        reporting.serverTiming(fresh.flag("server_timing", false));
        applyRequestLog(fresh);
        applyAdmission(fresh);
        if (controlApp != null) {
            controlApp.generation(number, (int) Math.max(1, fresh.number("workers", 1)),
                    (int) Math.max(1, fresh.number("threads", 1)));
        }
        announce("puma-plus: generation " + number + " ready, " + dispatcher.liveLinks(number)
                + " slots; retiring generation " + old.number);
        old.retire("hot restart");
        long waitMs = SHEPHERD_EXIT_WAIT_MS + fresh.nanos("worker_shutdown_timeout", 30) / 1_000_000;
        if (!old.awaitExit(waitMs)) {
            System.err.println("puma-plus: generation " + old.number + " did not exit within " + waitMs / 1000
                    + " s; killed it");
        }
        generations.remove(old);
        announce("puma-plus: generation " + old.number + " retired; hot restart done");
    }

    private void abandon(ShepherdGeneration next, ShepherdGeneration old, String why) {
        System.err.println("puma-plus: hot restart failed: generation " + next.number + ": " + why
                + "; generation " + old.number + " keeps serving");
        next.retire("hot restart failed");
        next.awaitExit(SHEPHERD_EXIT_WAIT_MS);
        generations.remove(next);
    }

    /** Phased restart: the current shepherd replaces its workers one at a time (PHASED_RESTART). */
    void phasedRestart(String cause) {
        ShepherdGeneration generation = current;
        announce("puma-plus: phased restart (" + cause + "): generation " + generation.number
                + " replaces its workers one at a time");
        generation.send(Frame.empty(FrameType.PHASED_RESTART, false));
    }

    /**
     * TTIN/TTOU: one worker process more ({@code delta} +1) or fewer (-1), never below one. Tells the current
     * shepherd the desired worker process count (WORKER_COUNT); the slots follow as workers dial in or drain.
     */
    void adjustWorkers(int delta, String cause) {
        int desired = Math.max(1, desiredWorkers + delta);
        if (desired == desiredWorkers) {
            announce("puma-plus: " + cause + ": already at one worker process");
            return;
        }
        announce("puma-plus: " + cause + ": " + desired + " worker process" + (desired == 1 ? "" : "es"));
        scaleWorkers(desired);
    }

    /**
     * Tells the current shepherd the desired worker process count (WORKER_COUNT), at least one: for TTIN/TTOU
     * and the autoscaler's fork actuator (the WorkerPool service). Any thread; a count equal to the current
     * one sends nothing.
     */
    void scaleWorkers(int count) {
        ShepherdGeneration generation = current;
        int desired = Math.max(1, count);
        if (generation == null || desired == desiredWorkers) {
            return;
        }
        desiredWorkers = desired;
        generation.send(new WorkerCount(desired).toFrame(PooledByteBufAllocator.DEFAULT));
        if (controlApp != null) {
            controlApp.generation(generation.number, desired, (int) Math.max(1, settings.number("threads", 1)));
        }
    }

    /**
     * Tells the current shepherd the desired number of slots beyond threads over its worker processes
     * (EXTRA_SLOTS), at least 0: for the Ractor and thread actuators (the WorkerPool service). Any thread;
     * a count equal to the current one sends nothing. A generation started later is sent it after its CONFIG.
     */
    void scaleExtraSlots(int count) {
        ShepherdGeneration generation = current;
        int desired = Math.max(0, count);
        if (generation == null || desired == desiredExtraSlots) {
            return;
        }
        desiredExtraSlots = desired;
        generation.send(new ExtraSlots(desired).toFrame(PooledByteBufAllocator.DEFAULT));
    }

    private void destroyShepherds() {
        for (ShepherdGeneration generation : generations) {
            if (generation.process.isAlive()) {
                generation.process.destroy();
            }
        }
    }

    private ControlApp.Actions controlActions() {
        return new ControlApp.Actions() {
            @Override
            public void restart() {
                lifecycle.execute(() -> hotRestart("control app"));
            }

            @Override
            public void phasedRestart() {
                lifecycle.execute(() -> Launcher.this.phasedRestart("control app"));
            }

            @Override
            public void stop(boolean halt) {
                halting = halt;
                stopCause = halt ? "control app halt" : "control app stop";
                Launcher.this.stop.complete(0);
            }
        };
    }

    // --- process-level settings: output, pidfile, state file -----------------------------------------------

    /** stdout_redirect, log_format, pidfile and state_path of the first generation's CONFIG. */
    private void applyProcessSettings(ShepherdConfig s) throws IOException {
        jsonLog = "json".equals(s.string("log_format", "text"));
        String stdoutPath = s.string("stdout_path", null);
        if (stdoutPath != null) {
            // The shepherd opened (and, unless appending, truncated) the file before it sent CONFIG.
            out = new PrintStream(new java.io.FileOutputStream(stdoutPath, true), true);
            System.setOut(out);
        }
        String stderrPath = s.string("stderr_path", null);
        if (stderrPath != null) {
            System.setErr(new PrintStream(new java.io.FileOutputStream(stderrPath, true), true));
        }
        String pid = s.string("pidfile", null);
        if (pid != null) {
            pidfile = Path.of(pid);
            Files.createDirectories(pidfile.toAbsolutePath().getParent());
            Files.writeString(pidfile, ProcessHandle.current().pid() + "\n");
        }
        String state = s.string("state_path", null);
        statePath = state == null ? null : Path.of(state);
        desiredWorkers = (int) Math.max(1, s.number("workers", 1));
    }

    /** puma's state file (YAML), which `puma-plus ctl -S` reads: pid, control URL and token. */
    private void writeState(String controlUrl) throws IOException {
        if (statePath == null) {
            return;
        }
        String token = settings.string("control_token", null);
        StringBuilder yaml = new StringBuilder("---\n");
        yaml.append("pid: ").append(ProcessHandle.current().pid()).append('\n');
        yaml.append("running_from: \"").append(Path.of("").toAbsolutePath()).append("\"\n");
        if (controlUrl != null) {
            yaml.append("control_url: \"").append(controlUrl).append("\"\n");
        }
        if (token != null) {
            yaml.append("control_auth_token: \"").append(token).append("\"\n");
        }
        Files.createDirectories(statePath.toAbsolutePath().getParent());
        Files.writeString(statePath, yaml);
    }

    /** log_requests (already false when quiet) switches the request log on or off; restarts may change it. */
    /** Shedding (shed_wait_limit_ms) and the health check path, from the configuration (docs/CONTROL.md). */
    private void applyAdmission(ShepherdConfig s) {
        double shedMs = s.decimal("shed_wait_limit_ms", Double.NaN);
        admission.shedding(Double.isNaN(shedMs) ? Double.POSITIVE_INFINITY : shedMs * 1e6);
        String healthPath = s.string("health_check_path", null);
        admission.healthCheck(healthPath == null || healthPath.isEmpty() ? null : healthPath,
                "host".equals(s.string("health_check_answer", "app")));
    }

    private void applyRequestLog(ShepherdConfig s) {
        if (s.flag("log_requests", false)) {
            if (requestLog == null) {
                requestLog = new RequestLog(out, jsonLog);
            }
            reporting.requestLog(requestLog);
        } else {
            reporting.requestLog(null);
        }
    }

    private static void deleteQuietly(Path path) {
        if (path == null) {
            return;
        }
        try {
            Files.deleteIfExists(path);
        } catch (IOException ignored) {
            // nothing to do: the file is advisory
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Prints one line of the runtime contract on stdout (as JSON with log_format json) and flushes it. */
    private void announce(String line) {
        PrintStream target = out;
        synchronized (target) {
            target.println(jsonLog ? LogFormat.json(line) : line);
            target.flush();
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
