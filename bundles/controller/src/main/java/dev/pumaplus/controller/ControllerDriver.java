/*
 * The live side of the controller bundle: once a tick (its length injected; 1 s in the bundle) it samples
 * the host's LoadSignals and the actuators (the primary one and the optional bridge), builds an
 * Observation, asks the Policy, applies the decision to the actuators and appends the decision log line;
 * between ticks it does the same for an alarm, when the host's watch sees the queue hot.
 * The policy stays pure; the clock, the I/O and the state live here.
 */
package dev.pumaplus.controller;

import dev.pumaplus.spi.Actuator;
import dev.pumaplus.spi.Autoscaler;
import dev.pumaplus.spi.LoadSignals;
import java.io.IOException;
import java.io.Writer;
import java.lang.System.Logger;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
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
    private volatile long alarms;
    /** Alarms' decisions not yet kept: they join {@link #recent} with the tick they are numbered with. */
    private final List<TickDecision> pendingAlarms = new ArrayList<>();
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
        this.ticker = DriverResources.ticker("puma-plus-controller");
    }

    void start() throws IOException {
        log = DriverResources.openLog(logPath);
        signals.sample(); // the first CPU reading is a baseline
        ticker.scheduleAtFixedRate(() -> DriverResources.safely(LOG, "controller tick", this::tick), tickMs, tickMs,
                TimeUnit.MILLISECONDS);
        double alarmMs = policy.alarmThresholdMs();
        if (alarmMs > 0) {
            signals.watchHotQueue(Math.round(alarmMs * 1e6), ticker,
                    () -> DriverResources.safely(LOG, "controller alarm", this::alarm));
        }
    }

    void stop() {
        signals.watchHotQueue(0, null, null);
        DriverResources.stop(ticker, log, logPath, LOG);
    }

    /** The primary actuator and the bridge (null when none is configured) found now. */
    private record Found(Actuator primary, Actuator bridge) {
    }

    /** The configured actuators, or null while one is missing (its bundle not started, or being swapped). */
    private Found actuatorsNow() {
        Actuator a = actuators.apply(primaryKind);
        Actuator bridge = bridgeKind == null ? null : actuators.apply(bridgeKind);
        return a == null || (bridgeKind != null && bridge == null) ? null : new Found(a, bridge);
    }

    /** One tick: sample, decide, apply, log. Runs on the ticker thread (tests call it directly). */
    void tick() throws IOException {
        Found found = actuatorsNow();
        if (found == null) {
            return;
        }
        Observation o = observe(found, signals.sample()).build();
        apply(o, policy.decide(state, o), found);
        ticks++;
    }

    /**
     * The host's hot-queue watch fired between ticks: sample now, let the policy decide on an alarm's
     * observation (numbered as the tick to come), and apply and log the decision if it changes anything; an
     * alarm that changes nothing leaves no trace (the policy returns the state unchanged). Runs on the ticker
     * thread, so never beside a tick (tests call it directly).
     */
    void alarm() throws IOException {
        Found found = actuatorsNow();
        if (found == null) {
            return;
        }
        // The oldest wait first: the sample's counters are then at least as recent as the wait they explain.
        double oldestWaitMs = signals.oldestWaitNanos() / 1e6;
        // peek: the CPU share stays the last tick's, and the next tick's is measured over a whole tick.
        Observation o = observe(found, signals.peek()).alarm(true).oldestWaitMs(oldestWaitMs).build();
        Decision d = policy.decide(state, o);
        if (d.delta() != 0 || d.bridgeDelta() != 0) {
            apply(o, d, found);
            alarms++;
        }
    }

    /** The observation of sample {@code s} and the actuators' counts, as a builder (tick or alarm). */
    private Observation.Builder observe(Found found, LoadSignals.Sample s) {
        Actuator a = found.primary();
        Actuator bridge = found.bridge();
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
                .gvlWaitRatio(s.gvlWaitRatio())
                .concurrencyLimit(s.concurrencyLimit());
        if (bridge != null) {
            b.bridgeUnits(bridge.units())
                    .bridgeReadyUnits(bridge.readyUnits())
                    .bridgeSlotsPerUnit(bridge.slotsPerUnit())
                    .bridgeDeadTimeMs(bridge.deadTimeNanos() / 1e6)
                    .bridgeGainKnown(gainKnown(bridge, s))
                    .bridgeSharesGvl(bridge.sharesGvl());
        }
        return b;
    }

    /** Logs and keeps decision {@code d} on {@code o}, carries its state and applies it to the actuators. */
    private void apply(Observation o, Decision d, Found found) throws IOException {
        Actuator a = found.primary();
        Actuator bridge = found.bridge();
        Instant now = Instant.now();
        if (log != null) {
            DecisionLog.append(log, now.toString(), policy, state, o, d);
        }
        keep(new TickDecision(o.tick(), now.toEpochMilli(), policy.id(), d.action(), d.delta(), d.bridgeDelta(),
                o.units(), d.tier(), d.reason()), o.alarm());
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
        lastDecision = Replay.summary(d);
    }

    /**
     * Keeps a decision for {@link #decisionsAfter}. An alarm's waits for the tick it is numbered with and is
     * kept just before it, in the same step: a reader that has seen tick N then has seen its alarms too.
     */
    private void keep(TickDecision decision, boolean alarm) {
        if (alarm) {
            pendingAlarms.add(decision);
            return;
        }
        synchronized (recent) {
            for (TickDecision d : pendingAlarms) {
                keepLocked(d);
            }
            keepLocked(decision);
        }
        pendingAlarms.clear();
    }

    private void keepLocked(TickDecision decision) {
        if (recent.size() == KEPT_DECISIONS) {
            recent.removeFirst();
        }
        recent.addLast(decision);
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

    /** Alarms that changed something since this driver started. */
    long alarms() {
        return alarms;
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
