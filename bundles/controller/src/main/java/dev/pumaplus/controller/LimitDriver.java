/*
 * The live side of the concurrency limiter for fiber slots (docs/CONTROL.md, "The concurrency limit"): once
 * a window (the policy's, 250 ms by default) it takes the host's window of slot times, times it with its
 * injected clock, asks the LimitPolicy, sets the limit the host's dispatcher holds requests to, and appends
 * a decision log line when something changed. The policy stays pure; the clock, the I/O and the state
 * live here.
 */
package dev.pumaplus.controller;

import dev.pumaplus.spi.ConcurrencyLimit;
import java.io.IOException;
import java.io.Writer;
import java.lang.System.Logger;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Lifecycle: {@link #start()} schedules the windows on one daemon thread ({@code puma-plus-limiter});
 * {@link #stop()} cancels them, waits for a window in progress and closes the log. A window that finds no
 * limit in force (the generation's workers run threads) decides nothing, and the next window with one
 * starts from {@link LimitState#initial()}. The decided limit is set every window, so a limit the host
 * reset (a hot restart sets it to the new generation's slot count) is restored within one window.
 *
 * <p>The log: a line for each window whose limit differs from the one in force, that starts or ends a probe,
 * or whose no-load baseline was learned, forgotten or moved by more than a tenth; any other window leaves no
 * line (each line holds the whole state, so replay needs none of them). It appends to the same file
 * as the autoscaler's {@link ControllerDriver}, each line one write to a file opened for appending, so the
 * two drivers' lines never interleave within a line.
 *
 * <p>Threading: windows run on the driver's thread (tests call {@link #window()} directly).
 */
final class LimitDriver {

    private static final Logger LOG = System.getLogger(LimitDriver.class.getName());

    private final LimitPolicy policy;
    private final ConcurrencyLimit limit;
    private final LongSupplier nanoClock;
    private final Path logPath;
    private final ScheduledExecutorService ticker;
    private Writer log;
    private LimitState state = LimitState.initial();
    private long windows;
    /** When the window being observed began, {@link #nanoClock} ns. */
    private long windowStart;

    /**
     * @param limit     the host's concurrency limit service
     * @param nanoClock the clock windows are timed with, ns ({@code System::nanoTime} live)
     * @param logPath   the decision log (appended to), or null for none
     */
    LimitDriver(LimitPolicy policy, ConcurrencyLimit limit, LongSupplier nanoClock, Path logPath) {
        this.policy = policy;
        this.limit = limit;
        this.nanoClock = nanoClock;
        this.logPath = logPath;
        this.ticker = DriverResources.ticker("puma-plus-limiter");
    }

    void start() throws IOException {
        open();
        limit.window(); // the first window starts now
        windowStart = nanoClock.getAsLong();
        ticker.scheduleAtFixedRate(() -> DriverResources.safely(LOG, "concurrency limit window", this::window),
                policy.windowMs(), policy.windowMs(), TimeUnit.MILLISECONDS);
    }

    /** Opens the decision log for appending (tests that call {@link #window()} directly call it too). */
    void open() throws IOException {
        if (log == null) {
            log = DriverResources.openLog(logPath);
        }
    }

    void stop() {
        DriverResources.stop(ticker, log, logPath, LOG);
    }

    /** One window: observe, decide, set the limit, log a change. Runs on the driver's thread. */
    void window() throws IOException {
        ConcurrencyLimit.Window w = limit.window();
        long now = nanoClock.getAsLong();
        double windowMs = (now - windowStart) / 1e6;
        windowStart = now;
        if (w == null) {
            state = LimitState.initial();
            return;
        }
        LimitObservation o = new LimitObservation(windows++, windowMs, (int) Math.min(Integer.MAX_VALUE, w.completed()),
                w.completed() == 0 ? Double.NaN : w.slotNanos() / 1e6 / w.completed(), w.peakInFlight(), w.depth(),
                w.liveSlots(), w.limit(), w.completed() == 0 ? Double.NaN : w.threadWaitNanos() / 1e6 / w.completed());
        LimitDecision d = policy.decide(state, o);
        boolean changed = d.limit() != o.limit() || d.next().probing() != state.probing()
                || baselineMoved(state.baselineMs(), d.next().baselineMs());
        if (changed && log != null) {
            DecisionLog.appendLimit(log, Instant.now().toString(), policy, state, o, d);
        }
        state = d.next();
        limit.set(d.limit());
    }

    /**
     * Whether the no-load baseline moved enough to log: learned, forgotten, or by more than a tenth. The
     * light windows of a quiet stretch nudge it every window; each line holds the whole state, so the lines
     * left out cost replay nothing.
     */
    static boolean baselineMoved(double was, double now) {
        if (Double.isNaN(was) || Double.isNaN(now)) {
            return Double.isNaN(was) != Double.isNaN(now);
        }
        return Math.abs(now - was) > 0.1 * was;
    }

    /** The limiter's state after the last window (for tests). */
    LimitState state() {
        return state;
    }
}
