/*
 * The app's shepherd generations over the host's life (docs/ARCHITECTURE.md, "Lifecycle"): which one is
 * current, hot restart and config reload (a new generation takes over once its slots dialled in), phased
 * restart, and the worker and extra-slot counts asked of the current shepherd (TTIN/TTOU, the actuators).
 */
package dev.pumaplus.host.lifecycle;

import dev.pumaplus.host.config.HostConfig;
import dev.pumaplus.wire.ExtraSlots;
import dev.pumaplus.wire.Frame;
import dev.pumaplus.wire.FrameType;
import dev.pumaplus.wire.Hello;
import dev.pumaplus.wire.WorkerCount;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntUnaryOperator;

/**
 * Threading: {@link #hotRestart}, {@link #phasedRestart} and {@link #adjustWorkers} may be called from any
 * thread (a signal handler, the control app); they run one at a time on this class's lifecycle thread,
 * never on a signal or event-loop thread. {@link #configured} runs on a link's event loop, {@link #scaleWorkers}
 * and {@link #scaleExtraSlots} on the caller's thread; the fields they share are volatile or concurrent.
 */
public final class Generations {

    /** What the launcher learns from the generations. Called on the lifecycle thread or a process-exit thread. */
    public interface Listener {

        /** A hot restart (or config reload) begins: generation {@code number} is being started. */
        void restarting(int number);

        /** Generation {@code number} now takes new requests, with {@code config} (after a hot restart). */
        void serving(int number, HostConfig config);

        /** The hot restart is settled: generation {@code number} serves with {@code slots} (the new one, or
         *  the old one when the new one failed). */
        void restarted(int number, int slots);

        /** The current generation {@code number} was asked for {@code workers} worker processes. */
        void workersAsked(int number, int workers);

        /** The current generation's shepherd exited by itself with {@code status}: the host must stop. */
        void lost(int status);
    }

    private static final System.Logger LOG = System.getLogger(Generations.class.getName());
    /** How long a retired or stopping shepherd may take to exit, beyond worker_shutdown_timeout. */
    static final long SHEPHERD_EXIT_WAIT_MS = 10_000;
    /** Beyond worker_boot_timeout, how long a new generation may take to send CONFIG and dial in. */
    private static final long GENERATION_BOOT_SLACK_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final ShepherdCommand command;
    private final IntUnaryOperator liveLinks;
    private final CompletableFuture<?> stopRequested;
    private final Listener listener;

    /** Every shepherd generation still alive, the current one included. */
    private final List<ShepherdGeneration> alive = new CopyOnWriteArrayList<>();
    /** The generation whose workers take new requests; null until the first one configured. */
    private volatile ShepherdGeneration current;
    /** The worker process count TTIN/TTOU adjust (starts at the CONFIG's workers). */
    private volatile int desiredWorkers;
    /** Slots beyond threads the Ractor or thread actuator asked for (EXTRA_SLOTS); starts at 0. */
    private volatile int desiredExtraSlots;
    private volatile boolean stopping;
    private final ExecutorService lifecycle = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "puma-plus-lifecycle");
        t.setDaemon(true);
        return t;
    });

    /**
     * @param command       how to start a shepherd
     * @param liveLinks     live worker links of a generation number (the dispatcher's count)
     * @param stopRequested completes when the host is asked to stop; a restart in progress gives up then
     */
    public Generations(ShepherdCommand command, IntUnaryOperator liveLinks, CompletableFuture<?> stopRequested,
                Listener listener) {
        this.command = command;
        this.liveLinks = liveLinks;
        this.stopRequested = stopRequested;
        this.listener = listener;
    }

    /** Spawns shepherd generation {@code number} (its CONFIG arrives through {@link #configured}). */
    public ShepherdGeneration spawn(int number) throws IOException {
        ShepherdGeneration generation = ShepherdGeneration.spawn(number, command);
        alive.add(generation);
        return generation;
    }

    /** The first generation sent its CONFIG: it is current, and the host stops if it exits. */
    public void serveFirst(ShepherdGeneration first) {
        desiredWorkers = first.settings().host().workers();
        current = first;
        watchExit(first);
    }

    /** The generation taking new requests, or null before the first one configured. */
    public ShepherdGeneration current() {
        return current;
    }

    /** A shepherd's CONFIG arrived (on its link's event loop): hand it to the generation its HELLO names. */
    public void configured(Channel link, Hello hello, String json) {
        for (ShepherdGeneration generation : alive) {
            if (generation.number == hello.generation()) {
                generation.configured(link, json);
                return;
            }
        }
        LOG.log(Level.WARNING, "CONFIG from an unknown shepherd generation " + hello.generation() + "; ignored");
        link.close();
    }

    /**
     * Hot restart and config reload, run on the lifecycle thread: a new shepherd generation reads the config
     * file again and boots; once all its slots have dialled in it becomes current, and the old generation
     * gets GOAWAY(0), stops its workers (each finishes the request it runs) and exits. A new generation that
     * fails to configure or to dial in within worker_boot_timeout (+30 s) is stopped and the old one keeps
     * serving. Listeners, the control app and protocol timeouts stay as they are.
     */
    public void hotRestart(String cause) {
        lifecycle.execute(() -> runHotRestart(cause));
    }

    private void runHotRestart(String cause) {
        ShepherdGeneration old = current;
        int number = old.number + 1;
        LOG.log(Level.INFO, "hot restart (" + cause + "): starting shepherd generation " + number
                + "; generation " + old.number + " keeps serving until it is ready");
        listener.restarting(number);
        ShepherdGeneration next;
        try {
            next = spawn(number);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "hot restart failed: cannot start a shepherd: " + e.getMessage());
            listener.restarted(old.number, liveLinks.applyAsInt(old.number));
            return;
        }
        HostConfig was = old.settings().host();
        long deadline = System.nanoTime() + was.workerBootTimeout().toNanos() + GENERATION_BOOT_SLACK_NANOS;
        try {
            CompletableFuture.anyOf(next.config, next.process.onExit(), stopRequested)
                    .get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException | InterruptedException e) {
            // handled below: no CONFIG
        }
        if (!next.config.isDone()) {
            abandon(next, old, next.process.isAlive() ? "no configuration in time"
                    : "its shepherd exited (status " + next.process.exitValue() + ") before sending its configuration");
            return;
        }
        HostConfig fresh;
        try {
            next.settings(ShepherdConfig.parse(next.config.join(), url -> { }));
            fresh = next.settings().host();
        } catch (IOException e) {
            abandon(next, old, e.getMessage());
            return;
        }
        // A new generation starts with no extra slots; the actuator's count carries over to it.
        if (desiredExtraSlots > 0) {
            next.send(new ExtraSlots(desiredExtraSlots).toFrame(ByteBufAllocator.DEFAULT));
        }
        for (String key : was.listenerChanges(fresh)) {
            LOG.log(Level.INFO, key + " changed in the config; listeners stay as they are (stop and start to apply it)");
        }
        while (liveLinks.applyAsInt(number) < fresh.slots()) {
            if (!next.process.isAlive() || stopRequested.isDone() || System.nanoTime() - deadline > 0) {
                abandon(next, old, next.process.isAlive() ? "its workers did not dial in within worker_boot_timeout"
                        : "its shepherd exited (status " + next.process.exitValue() + ")");
                return;
            }
            sleepQuietly(10);
        }
        desiredWorkers = fresh.workers(); // TTIN/TTOU start again from the file
        current = next;
        watchExit(next);
        listener.serving(number, fresh);
        int slots = liveLinks.applyAsInt(number);
        LOG.log(Level.INFO, "generation " + number + " ready, " + slots + " slots; retiring generation " + old.number);
        listener.restarted(number, slots);
        old.retire("hot restart");
        awaitExit(old, fresh);
        LOG.log(Level.INFO, "generation " + old.number + " retired; hot restart done");
    }

    private void abandon(ShepherdGeneration next, ShepherdGeneration old, String why) {
        LOG.log(Level.WARNING, "hot restart failed: generation " + next.number + ": " + why
                + "; generation " + old.number + " keeps serving");
        next.retire("hot restart failed");
        next.awaitExit(SHEPHERD_EXIT_WAIT_MS);
        alive.remove(next);
        listener.restarted(old.number, liveLinks.applyAsInt(old.number));
    }

    /** Phased restart: the current shepherd replaces its workers one at a time (PHASED_RESTART). */
    public void phasedRestart(String cause) {
        lifecycle.execute(() -> {
            ShepherdGeneration generation = current;
            LOG.log(Level.INFO, "phased restart (" + cause + "): generation " + generation.number
                    + " replaces its workers one at a time");
            generation.send(Frame.empty(FrameType.PHASED_RESTART, false));
        });
    }

    /** TTIN/TTOU: one worker process more ({@code delta} +1) or fewer (-1), never below one. */
    public void adjustWorkers(int delta, String cause) {
        lifecycle.execute(() -> {
            int desired = Math.max(1, desiredWorkers + delta);
            if (desired == desiredWorkers) {
                LOG.log(Level.INFO, cause + ": already at one worker process");
                return;
            }
            LOG.log(Level.INFO, cause + ": " + desired + " worker process" + (desired == 1 ? "" : "es"));
            scaleWorkers(desired);
        });
    }

    /**
     * Tells the current shepherd the desired worker process count (WORKER_COUNT), at least one: for TTIN/TTOU
     * and the autoscaler's fork actuator (the WorkerPool service). A count equal to the current one sends
     * nothing; the slots follow as workers dial in or drain.
     */
    public void scaleWorkers(int count) {
        ShepherdGeneration generation = current;
        int desired = Math.max(1, count);
        if (generation != null && desired != desiredWorkers) {
            desiredWorkers = desired;
            generation.send(new WorkerCount(desired).toFrame(ByteBufAllocator.DEFAULT));
            listener.workersAsked(generation.number, desired);
        }
    }

    /**
     * Tells the current shepherd the desired number of slots beyond threads over its worker processes
     * (EXTRA_SLOTS), at least 0: for the Ractor and thread actuators. A count equal to the current one sends
     * nothing. A generation started later is sent it after its CONFIG.
     */
    public void scaleExtraSlots(int count) {
        ShepherdGeneration generation = current;
        int extra = Math.max(0, count);
        if (generation == null || extra == desiredExtraSlots) {
            return;
        }
        desiredExtraSlots = extra;
        generation.send(new ExtraSlots(extra).toFrame(ByteBufAllocator.DEFAULT));
    }

    /**
     * SIGHUP after a log rotation: every live shepherd that sent its CONFIG (it handles SIGHUP from then on)
     * reopens the stdout_redirect files and has its workers do the same. The shepherd hears it as SIGHUP, as
     * puma's workers do.
     */
    public void reopenOutput() {
        for (ShepherdGeneration generation : alive) {
            if (!generation.config.isDone()) {
                continue; // still booting: SIGHUP would end it before its handler is installed
            }
            if (!signal(generation, "HUP")) {
                return;
            }
        }
    }

    /**
     * Refork (fork_worker, puma's SIGURG and {@code refork}): the current shepherd promotes its worker 0 to
     * the mold and forks every worker from it (docs/CONFIG.md, "fork_worker and the mold"); without
     * fork_worker it logs that it ignored it. SIGURG, which a shepherd still booting ignores by default.
     */
    public void refork(String cause) {
        lifecycle.execute(() -> {
            ShepherdGeneration generation = current;
            LOG.log(Level.INFO, "refork (" + cause + "): generation " + generation.number);
            signal(generation, "URG");
        });
    }

    /**
     * Sends SIG{@code name} to {@code generation}'s shepherd: JDK 21 can signal another process only with TERM
     * and KILL, so procps' kill sends it. False only when interrupted.
     */
    private static boolean signal(ShepherdGeneration generation, String name) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(generation.process.pid()))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                LOG.log(Level.WARNING, "could not send SIG" + name + " to shepherd generation " + generation.number);
            }
        } catch (IOException e) {
            LOG.log(Level.WARNING, "could not send SIG" + name + " to shepherd generation " + generation.number + ": "
                    + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return true;
    }

    /** The host is stopping: a generation exiting from now on is expected. */
    public void stopping() {
        stopping = true;
    }

    /** GOAWAY(0) to every live shepherd: each stops its workers and exits (host stop). */
    public void retireAll(String reason) {
        for (ShepherdGeneration generation : alive) {
            generation.retire(reason);
        }
    }

    /** Waits for every live shepherd to exit after the host's GOAWAY (killing one that takes too long). */
    public void awaitExitAll(HostConfig config) {
        for (ShepherdGeneration generation : alive) {
            awaitExit(generation, config);
        }
    }

    /** SIGTERM to every live shepherd: a failed boot or a last-resort cleanup, nothing to drain. */
    public void destroyAll() {
        for (ShepherdGeneration generation : alive) {
            if (generation.process.isAlive()) {
                generation.process.destroy();
            }
        }
    }

    private void awaitExit(ShepherdGeneration generation, HostConfig config) {
        long waitMs = SHEPHERD_EXIT_WAIT_MS + config.workerShutdownTimeout().toMillis();
        if (!generation.awaitExit(waitMs)) {
            LOG.log(Level.WARNING, "shepherd generation " + generation.number + " did not exit within "
                    + waitMs / 1000 + " s; killed it");
        }
        alive.remove(generation);
    }

    /** The host stops (status 1) if the generation serving requests exits by itself; a retired one may. */
    private void watchExit(ShepherdGeneration generation) {
        generation.process.onExit().thenAccept(p -> {
            alive.remove(generation);
            if (!stopping && generation == current) {
                LOG.log(Level.ERROR, "shepherd exited unexpectedly (status " + p.exitValue() + "), shutting down");
                listener.lost(p.exitValue());
            }
        });
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
