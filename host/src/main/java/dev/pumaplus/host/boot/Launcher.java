/*
 * The host's entry point and the root of the process tree: creates the private link directory, listens on
 * link.sock, starts Felix, spawns the first Ruby shepherd, waits for its CONFIG, starts the protocol bundles
 * and the control app, waits for a stop, and stops everything in order (docs/ARCHITECTURE.md). Generations
 * (restarts, scaling), process files and the log are their own classes; the launcher only launches.
 */
package dev.pumaplus.host.boot;

import dev.pumaplus.host.config.HostConfig;
import dev.pumaplus.host.control.ControlApp;
import dev.pumaplus.host.framework.EmbeddedFelix;
import dev.pumaplus.host.framework.ExportedPackages;
import dev.pumaplus.host.lifecycle.BundleExtender;
import dev.pumaplus.host.lifecycle.Generations;
import dev.pumaplus.host.lifecycle.ProcessFiles;
import dev.pumaplus.host.lifecycle.ShepherdCommand;
import dev.pumaplus.host.lifecycle.ShepherdConfig;
import dev.pumaplus.host.lifecycle.ShepherdGeneration;
import dev.pumaplus.host.lifecycle.ShepherdWorkerPool;
import dev.pumaplus.host.link.HostTransport;
import dev.pumaplus.host.link.LinkServer;
import dev.pumaplus.host.measure.NanoClock;
import dev.pumaplus.host.queue.Admission;
import dev.pumaplus.host.queue.Dispatcher;
import dev.pumaplus.host.queue.HostConcurrencyLimit;
import dev.pumaplus.host.queue.HostLoadSignals;
import dev.pumaplus.host.queue.QueueSnapshot;
import dev.pumaplus.host.queue.RequestLog;
import dev.pumaplus.host.queue.RequestReporting;
import dev.pumaplus.host.queue.WebSockets;
import dev.pumaplus.spi.ConcurrencyLimit;
import dev.pumaplus.spi.ConnectionSettings;
import dev.pumaplus.spi.EventLoops;
import dev.pumaplus.spi.HostSettings;
import dev.pumaplus.spi.Listener;
import dev.pumaplus.spi.LoadSignals;
import dev.pumaplus.spi.RequestQueue;
import dev.pumaplus.spi.WebSocketHub;
import dev.pumaplus.spi.WebSocketSettings;
import dev.pumaplus.spi.WebTransportSettings;
import dev.pumaplus.spi.WorkerPool;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.lang.System.Logger.Level;
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
import java.util.stream.Stream;
import org.osgi.framework.BundleException;

/**
 * {@code java dev.pumaplus.host.boot.Launcher --ruby RUBY --gem GEMDIR -- USER_ARGS...}
 *
 * <p>Boot: private dir (0700) → link server → Felix → shepherd process → HELLO(role 1) + CONFIG →
 * HostSettings and RequestQueue services → bundles from {@code <gem>/vendor/java/bundles/<name>.jar} →
 * control app → "ready" once workers × threads links are live ({@link ReadyLine}). Every line goes through
 * the one log ({@link HostLogHandler}), installed first, whose format the CONFIG's {@code log_format} sets.
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
 * shut the host's event loops down → delete the private dir and the {@link ProcessFiles} → exit 0. A
 * shepherd that dies on its own after boot makes the host stop with status 1.
 *
 * <p>Lifecycle signals (USR2, USR1, URG, TTIN/TTOU, HUP, TERM/INT) and the control app's verbs are
 * {@link OperatorCommands}' job. Under systemd, {@link SystemdNotify} tells the unit READY,
 * RELOADING around a hot restart, STOPPING, and keeps its watchdog fed.
 *
 * <p>Threading: the main thread boots and then waits for a stop request; link callbacks arrive on the
 * host's event loops and only complete futures or log; restarts run on the generations' lifecycle thread.
 */
public final class Launcher {

    private static final System.Logger LOG = System.getLogger(Launcher.class.getName());

    private final Path ruby;
    private final Path gem;
    private final List<String> userArgs;
    private final Instant startedAt = Instant.now();

    private final CompletableFuture<Integer> stop = new CompletableFuture<>();
    /** A halt: stop without draining (control app /halt). */
    private volatile boolean halting;
    /** What asked the host to stop, for the log line: a signal name, or why the host stops itself. */
    private volatile String stopCause = "shepherd exited";
    private volatile boolean stopping;

    private Path privateDir;
    private HostTransport transport;
    private Dispatcher dispatcher;
    private Admission admission;
    private WebSockets webSockets;
    private RequestReporting reporting;
    private LinkServer linkServer;
    private EmbeddedFelix felix;
    /** Set once in boot; read by the shutdown hook. */
    private volatile Generations generations;
    private volatile ControlApp controlApp;
    /** The first generation's settings: the process's (log, files, stop timeouts); null until its CONFIG. */
    private HostConfig config;
    /** Set once in boot, after the first generation is current; read by shutdown. */
    private volatile ProcessFiles files;
    private volatile RequestLog requestLog;
    /** systemd's NOTIFY_SOCKET (silent when not under systemd); opened first, closed last. */
    private SystemdNotify systemd;
    /** The operator's signals and the control app's verbs, mapped onto the generations and a stop. */
    private final OperatorCommands commands = new OperatorCommands(this::requestStop, () -> stopping);

    Launcher(Path ruby, Path gem, List<String> userArgs) {
        this.ruby = ruby;
        this.gem = gem;
        this.userArgs = userArgs;
    }

    /** Runs the host; exits the JVM with the host's status. */
    public static void main(String[] args) {
        HostLogHandler log = HostLogHandler.install();
        Launcher launcher;
        try {
            launcher = parse(args);
        } catch (IllegalArgumentException e) {
            LOG.log(Level.ERROR, e.getMessage());
            LOG.log(Level.ERROR, "usage: java dev.pumaplus.host.boot.Launcher --ruby RUBY --gem GEMDIR -- [puma-plus options]");
            System.exit(2);
            return;
        }
        System.exit(launcher.run(log));
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

    /** Boots, serves until stopped, and returns the exit status; {@code log} takes the CONFIG's format. */
    int run(HostLogHandler log) {
        systemd = SystemdNotify.open(System.getenv(), ProcessHandle.current().pid());
        commands.installSignalHandlers();
        Runtime.getRuntime().addShutdownHook(new Thread(this::emergencyCleanup, "puma-plus-cleanup"));
        int status;
        try {
            status = boot(log);
            if (status == 0) {
                status = stop.join();
            }
            if (status != 0) {
                generations.destroyAll(); // a failed boot: nothing to drain, stop the shepherd now
            }
        } catch (Exception e) {
            LOG.log(Level.ERROR, describe(e));
            status = 1;
            if (generations != null) {
                generations.destroyAll();
            }
        }
        shutdown();
        return status;
    }

    /** Returns 0 once serving, else the status to exit with (after {@link #shutdown}). */
    private int boot(HostLogHandler log) throws Exception {
        privateDir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "puma-plus-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.setPosixFilePermissions(privateDir, PosixFilePermissions.fromString("rwx------"));

        transport = HostTransport.select();
        dispatcher = new Dispatcher(NanoClock.SYSTEM);
        reporting = new RequestReporting(dispatcher.metrics());
        admission = new Admission(dispatcher, ByteBufAllocator.DEFAULT, reporting);
        ReadyLine ready = new ReadyLine(() -> dispatcher.snapshot().live(),
                slots -> systemd.ready("ready, " + slots + " slots"));
        dispatcher.onLiveLinksChanged(live -> ready.linksChanged());
        dispatcher.metrics().start(admission::submitted);
        Path socket = privateDir.resolve("link.sock");
        generations = new Generations(new ShepherdCommand(ruby, gem, userArgs, socket), dispatcher::liveLinks, stop,
                generationEvents());
        commands.generations(generations);
        // Each CONFIG goes to the generation its HELLO names (hot restart: two shepherds at once).
        webSockets = new WebSockets(admission, dispatcher.metrics());
        linkServer = new LinkServer(transport, dispatcher, reporting, webSockets, generations::configured);
        linkServer.bind(socket);

        felix = EmbeddedFelix.start(privateDir.resolve("felix"), systemPackages());

        ShepherdGeneration first = generations.spawn(1);
        CompletableFuture.anyOf(first.config, first.process.onExit(), stop).join();
        if (!first.config.isDone()) {
            if (stop.isDone()) {
                return stop.join();
            }
            int code = first.process.exitValue();
            LOG.log(Level.ERROR, "shepherd exited (status " + code + ") before sending its configuration");
            return Math.max(1, code);
        }
        ShepherdConfig settings = ShepherdConfig.parse(first.config.join(),
                url -> LOG.log(Level.INFO, "listening on " + url));
        first.settings(settings);
        generations.serveFirst(first); // current from now on: the actuators and the control app act on it
        config = settings.host();
        files = ProcessFiles.open(config);
        commands.files(files);
        log.setFormatter(config.logFormat());
        configureRequests(config);
        LOG.log(Level.INFO, "host pid " + ProcessHandle.current().pid() + ", Java " + Runtime.version().feature()
                + ", " + transport.transport() + " transport; shepherd generation 1");
        LOG.log(Level.INFO, "environment " + config.environment() + ", " + plural(config.workers(), "worker") + " x "
                + plural(config.threads(), config.slotNoun()) + " = " + plural(config.slots(), "slot"));

        felix.context().registerService(HostSettings.class, settings, null);
        felix.context().registerService(RequestQueue.class, admission, null);
        webSockets.configure(WebSocketSettings.from(settings), WebTransportSettings.from(settings),
                ConnectionSettings.from(settings).writeTimeout().toSeconds());
        felix.context().registerService(WebSocketHub.class, webSockets, null);
        felix.context().registerService(EventLoops.class, transport, null);
        felix.context().registerService(LoadSignals.class, new HostLoadSignals(dispatcher), null);
        felix.context().registerService(ConcurrencyLimit.class, new HostConcurrencyLimit(dispatcher), null);
        felix.context().registerService(WorkerPool.class, new ShepherdWorkerPool(dispatcher,
                generations::scaleWorkers, generations::scaleExtraSlots, config.threads(), config.workers()), null);
        BundleExtender extender = new BundleExtender(felix.context());
        extender.open();
        for (String name : config.bundles()) {
            Path jar = gem.resolve("vendor").resolve("java").resolve("bundles").resolve(name + ".jar");
            try {
                if (!Files.isRegularFile(jar)) {
                    throw new BundleException("no such file " + jar);
                }
                RuntimeException refused = extender.failure(felix.installAndStart(jar));
                if (refused != null) {
                    throw refused; // the bundle started, but what it offers did not open
                }
            } catch (BundleException | RuntimeException e) {
                LOG.log(Level.ERROR, "bundle " + name + " failed to start: " + describe(e));
                return 1;
            }
        }

        String controlUrl = config.controlUrl();
        String metricsUrl = config.metricsUrl();
        boolean control = controlUrl != null && !controlUrl.isEmpty();
        String stateUrl = null;
        // Puma's rule: a control app has a token unless told no_token; one nobody configured is made here,
        // once per process, so every generation's config reload keeps the one pumactl already holds.
        boolean generated = control && config.controlToken() == null && !config.controlNoToken();
        String token = !control || config.controlNoToken() ? null
                : generated ? ControlApp.randomToken() : config.controlToken();
        if (control || metricsUrl != null && !metricsUrl.isEmpty()) {
            ControlApp app = new ControlApp(dispatcher, token, config.controllerJarDir(), config.workers(),
                    config.threads(), startedAt);
            app.felix(felix);
            app.webSockets(webSockets);
            app.actions(commands);
            controlApp = app;
            if (control) {
                InetSocketAddress bound = app.bind(transport, controlUrl);
                LOG.log(Level.INFO, "control app on http://" + hostOf(controlUrl) + ":" + bound.getPort());
                if (generated) {
                    LOG.log(Level.INFO, "control app token: " + token + " (generated at boot"
                            + (config.statePath() == null ? ")" : "; also in the state file " + config.statePath() + ")"));
                }
                stateUrl = "tcp://" + hostOf(controlUrl) + ":" + bound.getPort();
            }
            if (metricsUrl != null && !metricsUrl.isEmpty()) {
                InetSocketAddress bound = app.bindMetrics(transport, metricsUrl);
                LOG.log(Level.INFO, "metrics on http://" + hostOf(metricsUrl) + ":" + bound.getPort() + "/metrics");
            }
        }
        files.writeState(stateUrl, token);

        ready.booted(config.slots());
        return 0;
    }

    private static String plural(int count, String noun) {
        return count + " " + noun + (count == 1 ? "" : "s");
    }

    /** What the generations tell the launcher: settings to apply, counts to show, a lost shepherd. */
    private Generations.Listener generationEvents() {
        return new Generations.Listener() {
            @Override
            public void restarting(int number) {
                systemd.reloading("hot restart: starting shepherd generation " + number);
            }

            @Override
            public void restarted(int number, int slots) {
                systemd.ready("ready, generation " + number + ", " + slots + " slots");
            }

            @Override
            public void serving(int number, HostConfig fresh) {
                configureRequests(fresh);
                ControlApp app = controlApp;
                if (app != null) {
                    app.generation(number, fresh.workers(), fresh.threads());
                }
            }

            @Override
            public void workersAsked(int number, int workers) {
                ControlApp app = controlApp;
                if (app != null) {
                    app.generation(number, workers, latestConfig().threads());
                }
            }

            @Override
            public void lost(int status) {
                stop.complete(1);
            }
        };
    }

    /** The current generation's settings (a config reload may change the stop timeouts), else the first's. */
    private HostConfig latestConfig() {
        ShepherdGeneration current = generations == null ? null : generations.current();
        return current == null ? config : current.settings().host();
    }

    /**
     * The current generation's per-request settings: server timing, the request log (log_requests, already
     * false when quiet), shedding (shed_wait_limit_ms), the health check path and, for fiber slots, the
     * concurrency limit, which starts at the slot count until the controller's first window (docs/CONTROL.md).
     */
    private void configureRequests(HostConfig c) {
        dispatcher.concurrencyLimit(c.fiberSlots() ? c.slots() : Dispatcher.UNLIMITED);
        reporting.serverTiming(c.serverTiming());
        if (c.logRequests()) {
            if (requestLog == null) {
                requestLog = new RequestLog();
            }
            reporting.requestLog(requestLog);
        } else {
            reporting.requestLog(null);
        }
        admission.shedding(c.shedWaitLimitMs() == null ? Double.POSITIVE_INFINITY : c.shedWaitLimitMs() * 1e6);
        String healthPath = c.healthCheckPath();
        admission.healthCheck(healthPath == null || healthPath.isEmpty() ? null : healthPath, c.hostAnswersHealthCheck());
    }

    private void shutdown() {
        stopping = true;
        if (generations != null) {
            generations.stopping();
        }
        boolean booted = config != null; // a boot that failed has said why; nothing to drain
        HostConfig latest = booted ? latestConfig() : HostConfig.DEFAULTS;
        long timeoutNanos = !booted || halting ? 0 : latest.shutdownTimeout().toNanos();
        systemd.stopping("stopping (" + stopCause + ")");
        if (booted) {
            QueueSnapshot now = dispatcher.snapshot();
            LOG.log(Level.INFO, "stopping (" + stopCause + "): no new connections; finishing " + now.depth()
                    + " queued and " + now.busy() + " running requests (up to " + (timeoutNanos / 1_000_000_000L)
                    + " s)");
        }
        if (felix != null) {
            for (Listener listener : felix.services(Listener.class)) {
                try {
                    listener.stopAccepting();
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "a listener failed to stop accepting: " + e);
                }
            }
        }
        if (webSockets != null && booted) {
            // The listeners started the closing handshake of every held WebSocket; their close events join
            // the queue as the clients answer, so the queue drains them with the rest.
            timeoutNanos = webSockets.awaitClosed(timeoutNanos);
        }
        if (dispatcher != null && !dispatcher.drain(timeoutNanos, transport.group.next())) {
            LOG.log(Level.WARNING, "shutdown_timeout reached, unfinished requests answered 503");
        }
        if (generations != null) {
            // The shepherds stop their workers (TERM): each worker ends its links with GOAWAY and exits. A
            // GOAWAY to the worker links themselves would let a worker exit before its shepherd hears of the
            // stop, and the shepherd would start a replacement.
            generations.retireAll("shutdown");
            generations.awaitExitAll(latest);
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
        if (transport != null) {
            transport.shutdown();
        }
        if (requestLog != null) {
            requestLog.drain(2_000); // every request line before "stopped"
        }
        deletePrivateDir();
        if (files != null) {
            files.delete();
        }
        if (booted) {
            LOG.log(Level.INFO, "stopped");
        }
        systemd.close();
    }

    /** Last resort when the JVM exits without {@link #shutdown} (an exit nobody planned): no orphans, no litter. */
    private void emergencyCleanup() {
        if (stopping) {
            return;
        }
        if (generations != null) {
            generations.destroyAll();
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
            LOG.log(Level.WARNING, "could not delete " + dir + ": " + e.getMessage());
        }
    }

    /** Asks the main thread to stop (a signal, the control app, or the host itself). Any thread. */
    private void requestStop(String cause, boolean halt) {
        halting = halt;
        stopCause = cause;
        stop.complete(0);
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
