/*
 * The live side of the controller bundle: once a tick (its length injected; 1 s in the bundle) it samples
 * the host's LoadSignals and the actuators (the primary one and the optional bridge), builds an
 * Observation, asks the Policy, applies the decision to the actuators and appends the decision log line.
 * The policy stays pure; the clock, the I/O and the state live here.
 */
package dev.pumaplus.controller;

import dev.pumaplus.spi.Actuator;
import dev.pumaplus.spi.Autoscaler;
import dev.pumaplus.spi.LoadSignals;
import java.io.IOException;
import java.io.Writer;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Lifecycle: {@link #start()} schedules the ticks on one daemon thread; {@link #stop()} cancels them and
 * waits for a tick in progress, then closes the log. The primary actuator is the Actuator service of kind
 * {@code primaryKind} (HostSettings {@code autoscale_actuator}, default {@code fork}); the bridge, when the
 * configuration names one ({@code autoscale_bridge}), the service of that kind. A tick that finds either
 * missing (its bundle not started yet, or being swapped) is skipped, not logged. A failing tick is reported
 * as a warning on this class's System.Logger (the host's one log) and the next one runs. The state starts
 * at {@link State#initial()} for each driver: a swapped-in policy starts with no streaks and no cooldowns,
 * while the units the actuators run carry over untouched.
 *
 * <p>The last {@link #KEPT_DECISIONS} decisions are also kept in memory for {@link #decisionsAfter} (the
 * dashboard's list), whether or not a decision log is written.
 *
 * <p>Threading: ticks run on the driver's thread; {@link Autoscaler} methods read volatile fields, or copy
 * the kept decisions under their lock, from any thread.
 */
final class ControllerDriver implements Autoscaler {

    private static final Logger LOG = System.getLogger(ControllerDriver.class.getName());
    /** Decisions kept for {@link #decisionsAfter}: two minutes of 1 s ticks. */
    static final int KEPT_DECISIONS = 120;

    private final Policy policy;
    private final LoadSignals signals;
    private final Function<String, Actuator> actuators;
    private final String primaryKind;
    private final String bridgeKind;
    private final Path logPath;
    private final long tickMs;
    private final ScheduledExecutorService ticker;
    private Writer log;
    private State state = State.initial();
    private volatile long ticks;
    private volatile String lastDecision;
    /** The most recent decisions, oldest first; guarded by itself. */
    private final ArrayDeque<TickDecision> recent = new ArrayDeque<>(KEPT_DECISIONS);

    /**
     * @param actuators   the registered Actuator of a kind, or null
     * @param primaryKind the kind of the primary actuator ({@code fork})
     * @param bridgeKind  the kind of the bridge ({@code ractor}, {@code thread}), or null for none
     * @param logPath     the decision log (appended to), or null for none
     * @param tickMs      the time between two ticks, ms (each Observation carries it)
     */
    ControllerDriver(Policy policy, LoadSignals signals, Function<String, Actuator> actuators, String primaryKind,
                     String bridgeKind, Path logPath, long tickMs) {
        this.policy = policy;
        this.signals = signals;
        this.actuators = actuators;
        this.primaryKind = primaryKind;
        this.bridgeKind = bridgeKind;
        this.logPath = logPath;
        this.tickMs = tickMs;
        this.ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "puma-plus-controller");
            t.setDaemon(true);
            return t;
        });
    }

    void start() throws IOException {
        if (logPath != null) {
            if (logPath.getParent() != null) {
                Files.createDirectories(logPath.getParent());
            }
            log = Files.newBufferedWriter(logPath, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        }
        signals.sample(); // the first CPU reading is a baseline
        ticker.scheduleAtFixedRate(this::tickSafely, tickMs, tickMs, TimeUnit.MILLISECONDS);
    }

    void stop() {
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
                LOG.log(Level.WARNING, "decision log " + logPath + ": " + e.getMessage());
            }
        }
    }

    private void tickSafely() {
        try {
            tick();
        } catch (RuntimeException | IOException e) {
            LOG.log(Level.WARNING, "controller tick failed", e);
        }
    }

    /** One tick: sample, decide, apply, log. Runs on the ticker thread (tests call it directly). */
    void tick() throws IOException {
        Actuator a = actuators.apply(primaryKind);
        Actuator bridge = bridgeKind == null ? null : actuators.apply(bridgeKind);
        if (a == null || (bridgeKind != null && bridge == null)) {
            return;
        }
        LoadSignals.Sample s = signals.sample();
        Observation.Builder b = Observation.builder()
                .tick(ticks)
                .tickMs(tickMs)
                .arrivalsPerSec(s.arrivalsPerSecond())
                .queueP95Ms(s.queueP95Nanos() / 1e6)
                .queueP99Ms(s.queueP99Nanos() / 1e6)
                .slotMs(s.meanSlotNanos() / 1e6)
                .depth(s.depth())
                .busySlots(s.busySlots())
                .liveSlots(s.liveSlots())
                .predictedWaitMs(s.predictedWaitNanos() / 1e6)
                .units(a.units())
                .readyUnits(a.readyUnits())
                .slotsPerUnit(a.slotsPerUnit())
                .deadTimeMs(a.deadTimeNanos() / 1e6)
                .memPerUnitMb(mebibytes(a.memoryPerUnitBytes()))
                .memAvailableMb(mebibytes(s.memAvailableBytes()))
                .cpuBusy(s.cpuBusy())
                .gainKnown(a.gainKnown())
                .gvlWaitRatio(s.gvlWaitRatio());
        if (bridge != null) {
            b.bridgeUnits(bridge.units())
                    .bridgeReadyUnits(bridge.readyUnits())
                    .bridgeSlotsPerUnit(bridge.slotsPerUnit())
                    .bridgeDeadTimeMs(bridge.deadTimeNanos() / 1e6)
                    .bridgeGainKnown(gainKnown(bridge, s))
                    .bridgeSharesGvl(bridge.sharesGvl());
        }
        Observation o = b.build();
        Decision d = policy.decide(state, o);
        Instant now = Instant.now();
        if (log != null) {
            DecisionLog.append(log, now.toString(), policy, state, o, d);
        }
        keep(new TickDecision(ticks, now.toEpochMilli(), policy.id(), d.action(), d.delta(), d.bridgeDelta(),
                o.units(), d.tier(), d.reason()));
        state = d.next();
        if (d.delta() > 0) {
            a.add(d.delta());
        } else if (d.delta() < 0) {
            a.remove(-d.delta());
        }
        if (d.bridgeDelta() > 0) {
            bridge.add(d.bridgeDelta());
        } else if (d.bridgeDelta() < 0) {
            bridge.remove(-d.bridgeDelta());
        }
        ticks++;
        lastDecision = Replay.summary(d);
    }

    private void keep(TickDecision decision) {
        synchronized (recent) {
            if (recent.size() == KEPT_DECISIONS) {
                recent.removeFirst();
            }
            recent.addLast(decision);
        }
    }

    /**
     * Whether one more unit of {@code a} is known to add capacity or not: what the actuator says, or, for a
     * unit under its process's GVL (a thread), whether the workers measure GVL wait. The policy judges the
     * measurement ({@link Observation#gvlWaitRatio()}); the actuator cannot, as the host measures it.
     */
    static boolean gainKnown(Actuator a, LoadSignals.Sample s) {
        return a.gainKnown() || (a.sharesGvl() && !Double.isNaN(s.gvlWaitRatio()));
    }

    /** Bytes in MiB; NaN for the SPI's -1 (unknown). */
    private static double mebibytes(long bytes) {
        return bytes < 0 ? Double.NaN : bytes / 1048576.0;
    }

    @Override
    public String policyId() {
        return policy.id();
    }

    @Override
    public long ticks() {
        return ticks;
    }

    @Override
    public String lastDecision() {
        return lastDecision;
    }

    @Override
    public List<TickDecision> decisionsAfter(long tick) {
        synchronized (recent) {
            List<TickDecision> after = new ArrayList<>();
            for (TickDecision d : recent) {
                if (d.tick() > tick) {
                    after.add(d);
                }
            }
            return after;
        }
    }
}
