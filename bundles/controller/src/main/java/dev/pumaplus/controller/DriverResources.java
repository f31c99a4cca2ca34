/*
 * What the controller bundle's two live drivers (ControllerDriver's ticks, LimitDriver's windows) hold the
 * same way: one daemon thread that runs them, a step's failure logged without stopping the next, and the
 * decision log file they append to.
 */
package dev.pumaplus.controller;

import java.io.IOException;
import java.io.Writer;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** Static helpers; no state of its own. */
final class DriverResources {

    private DriverResources() {
    }

    /** A driver's scheduled step (a tick, an alarm, a window): it fails with an IOException or a RuntimeException. */
    interface Step {
        void run() throws IOException;
    }

    /**
     * Runs {@code step} on the driver's thread; a failure is a warning on {@code logger} ("{@code what}
     * failed"), never thrown, so the next step still runs.
     */
    static void safely(Logger logger, String what, Step step) {
        try {
            step.run();
        } catch (RuntimeException | IOException e) {
            logger.log(Level.WARNING, what + " failed", e);
        }
    }

    /** A single daemon thread named {@code name}, for a driver's scheduled steps. */
    static ScheduledExecutorService ticker(String name) {
        return Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    /** The decision log at {@code path} opened for appending (its directory made), or null for no path. */
    static Writer openLog(Path path) throws IOException {
        if (path == null) {
            return null;
        }
        if (path.getParent() != null) {
            Files.createDirectories(path.getParent());
        }
        return Files.newBufferedWriter(path, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
    }

    /**
     * Stops {@code ticker} (waiting up to 5 s for a step in progress), then closes {@code log} if open; a
     * failure to close is logged against {@code path}, never thrown.
     */
    static void stop(ScheduledExecutorService ticker, Writer log, Path path, Logger logger) {
        ticker.shutdown();
        try {
            ticker.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (log != null) {
            try {
                log.close();
            } catch (IOException e) {
                logger.log(Level.WARNING, "decision log " + path + ": " + e.getMessage());
            }
        }
    }
}
