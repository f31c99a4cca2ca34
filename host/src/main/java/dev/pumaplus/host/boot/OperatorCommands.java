/*
 * What the operator asks of a running host, from either of its two doors: Unix signals (TERM, INT, USR2,
 * USR1, URG, TTIN, TTOU, HUP, as puma's) and the control app's verbs (/restart, /phased-restart, /refork,
 * /stop, /halt). Each becomes a call on the generations or a stop request to the launcher; never in a
 * request's path.
 */
package dev.pumaplus.host.boot;

import dev.pumaplus.host.control.ControlApp;
import dev.pumaplus.host.lifecycle.Generations;
import dev.pumaplus.host.lifecycle.ProcessFiles;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.function.BooleanSupplier;

/**
 * Signals go through {@code sun.misc.Signal} so the exit status stays the host's. Lifecycle signals
 * (docs/ARCHITECTURE.md, "Lifecycle") go to {@link Generations}: USR2 = hot restart, USR1 = phased restart,
 * URG = refork (fork_worker), TTIN/TTOU = one worker process more/less; they are ignored before the first
 * generation serves and while the host stops. HUP reopens the stdout_redirect files ({@link ProcessFiles}),
 * or stops without them. TERM and INT stop gracefully.
 *
 * <p>Threading: signal handlers run on the JVM's signal thread, the control app's verbs on its thread;
 * each only schedules work (the generations' lifecycle thread, the launcher's main thread) and returns. The
 * generations and files arrive once from the launcher's boot (volatile).
 */
final class OperatorCommands implements ControlApp.Actions {

    private static final System.Logger LOG = System.getLogger(OperatorCommands.class.getName());

    /** The launcher's stop request: {@code cause} for the log line, {@code halt} to skip draining. */
    interface StopRequest {
        void requestStop(String cause, boolean halt);
    }

    private final StopRequest stop;
    private final BooleanSupplier stopping;
    private volatile Generations generations;
    private volatile ProcessFiles files;

    OperatorCommands(StopRequest stop, BooleanSupplier stopping) {
        this.stop = stop;
        this.stopping = stopping;
    }

    /** The generations, once boot created them: lifecycle signals act from the first generation's serving. */
    void generations(Generations generations) {
        this.generations = generations;
    }

    /** The process files, once boot opened them: SIGHUP reopens them (before, it does nothing). */
    void files(ProcessFiles files) {
        this.files = files;
    }

    /** Installs every handler; called first thing in the launcher's run, before boot. */
    void installSignalHandlers() {
        for (String name : new String[] {"TERM", "INT"}) {
            try {
                sun.misc.Signal.handle(new sun.misc.Signal(name),
                        signal -> stop.requestStop("SIG" + signal.getName(), false));
            } catch (IllegalArgumentException unsupported) {
                // e.g. INT is ignored when started in the background; the shutdown hook still cleans up
            }
        }
        handle("USR2", () -> generations.hotRestart("SIGUSR2"));
        handle("USR1", () -> generations.phasedRestart("SIGUSR1"));
        handle("URG", () -> generations.refork("SIGURG"));
        handle("TTIN", () -> generations.adjustWorkers(+1, "SIGTTIN"));
        handle("TTOU", () -> generations.adjustWorkers(-1, "SIGTTOU"));
        handle("HUP", this::hangUp);
    }

    @Override
    public void restart() {
        generations.hotRestart("control app");
    }

    @Override
    public void phasedRestart() {
        generations.phasedRestart("control app");
    }

    @Override
    public void refork() {
        generations.refork("control app");
    }

    @Override
    public void stop(boolean halt) {
        stop.requestStop(halt ? "control app halt" : "control app stop", halt);
    }

    /**
     * SIGHUP, as puma's: with stdout_redirect the files are reopened at their paths (log rotation: the host
     * here, the shepherds and their workers by their own SIGHUP), else the server stops.
     */
    private void hangUp() {
        ProcessFiles files = this.files;
        if (files == null) {
            return; // boot has not opened them yet: there is nothing to reopen
        }
        if (!files.redirected()) {
            stop.requestStop("SIGHUP", false);
            return;
        }
        try {
            files.reopenOutput();
        } catch (IOException e) {
            LOG.log(Level.ERROR, "SIGHUP: cannot reopen the stdout_redirect files: " + e.getMessage());
            return;
        }
        LOG.log(Level.INFO, "SIGHUP: stdout_redirect files reopened");
        generations.reopenOutput();
    }

    /** Runs {@code action} when signal {@code name} arrives (ignored before boot and while stopping). */
    private void handle(String name, Runnable action) {
        try {
            sun.misc.Signal.handle(new sun.misc.Signal(name), signal -> {
                Generations g = generations;
                if (g != null && g.current() != null && !stopping.getAsBoolean()) {
                    action.run();
                }
            });
        } catch (IllegalArgumentException unsupported) {
            LOG.log(Level.WARNING, "cannot handle SIG" + name + ": " + unsupported.getMessage());
        }
    }
}
