/*
 * The default autoscaling policy (docs/CONTROL.md): tiers with hysteresis on queue time, the whole
 * Little's-law shortfall added in one decision, a settled gate on capacity still dialling in, CPU, memory
 * and gain guards, and scale-down only after sustained idle.
 */
package dev.pumaplus.controller;

import java.util.Locale;
import java.util.Map;

/**
 * Tiered thresholds on r = max(queue p95, W_pred) / target:
 * <ul>
 *   <li><b>hot</b> r ≥ {@code hotRatio}: act on the first tick, cooldown {@code hotCooldownTicks};</li>
 *   <li><b>warm</b> r &gt; 1: act once the breach has lasted {@code warmTicks}, cooldown
 *       {@code warmCooldownTicks};</li>
 *   <li>hysteresis: a breach tier is kept while r ≥ {@code exitRatio} (below 1), so a signal hovering at
 *       the target neither resets nor restarts the streak;</li>
 *   <li><b>idle</b>: ρ = λ·S/c &lt; {@code idleUtilization}, p95 ≤ {@code idleP95Ratio}·target and nothing
 *       waiting; after {@code idleTicks} such ticks in a row the excess over the need at
 *       {@code downUtilization} is removed (cooldown {@code downCooldownTicks}), never below min;</li>
 *   <li><b>steady</b>: otherwise; nothing changes.</li>
 * </ul>
 *
 * <p>Step size (Little's law): the backlog expected once new units could be ready is
 * B = L + max(0, λ − μ)·D (μ = c/S the ready capacity, D the dead time); the slots needed to carry λ and
 * drain B within {@code drainHorizonMs} at utilization u are ⌈(λ + B/H)·S / u⌉. The whole shortfall between
 * those and the expected units (ready + booting) is added in one decision, bounded by max.
 *
 * <p>Settled gate: capacity on its way is expected units − dialled-in units. The shortfall is measured
 * against expected units, so units still booting count as already added, and while any boot the need is
 * λ's alone (the backlog was sized by the decision that started them): a breach whose need they cover is
 * declined ("settled gate"); only a λ that outgrew them adds more. No timer is involved.
 *
 * <p>Guards, applied to every addition ({@link TieredGuards}): CPU busy ≥ {@code cpuSaturation} declines (more processes would
 * compete for the same cores and raise queue time: shed instead); the number added is capped by what
 * fits in MemAvailable − {@code memReserveMb}; an unknown gain ({@link Observation#gainKnown()}) declines;
 * a concurrency limit that binds below the live slots ({@link Observation#limitBinds()}) declines unless the
 * workers' threads are the bottleneck ({@code gvlWaitRatio} at least {@code gvlBoundRatio}).
 *
 * <p>Bridge (with a fast actuator beside the primary one, {@link Observation#hasBridge()}): a decision that
 * adds primary units whose dead time leads the bridge's by at least {@code bridgeMinLeadMs} also adds bridge
 * slots for the slots still on their way, at most {@code maxBridgeSlots}; once no primary unit is booting
 * every bridge slot is removed ({@link TieredBridgeRule}). The primary decision is the same with or without a
 * bridge.
 *
 * <p>Alarm ({@link Observation#alarm()}, between ticks): acts only on a queue hot now, as a hot tick would
 * ({@link #decideAlarm}).
 */
public final class TieredPolicy implements Policy {

    /** The policy id in the decision log. */
    public static final String ID = "tiered/1";

    /** The standard normal quantile of a one-sided 95 % bound ({@link #outgrowsSlots}). */
    private static final double POISSON_Z95 = 1.6449;

    private final Params p;
    private final TieredGuards guards;
    private final TieredBridgeRule bridge;

    public TieredPolicy(Params params) {
        this.p = params.validated();
        this.guards = new TieredGuards(p);
        this.bridge = new TieredBridgeRule(p);
    }

    /** The policy with every default (docs/CONTROL.md). */
    public static TieredPolicy defaults() {
        return new TieredPolicy(Params.DEFAULTS);
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public Map<String, Object> params() {
        return p.toMap();
    }

    /**
     * Alarms when the oldest waiting request has waited {@code alarmRatio} × the target
     * ({@link #decideAlarm}); none with {@code alarmRatio} 0.
     */
    @Override
    public double alarmThresholdMs() {
        return p.alarmRatio > 0 ? p.alarmRatio * p.targetP95Ms : Double.NaN;
    }

    /** This policy's parameters. */
    public Params parameters() {
        return p;
    }

    @Override
    public Decision decide(State s, Observation o) {
        if (o.alarm()) {
            return decideAlarm(s, o);
        }
        Decision primary = decidePrimary(s, o);
        return o.hasBridge() ? bridge.apply(o, primary) : primary;
    }

    /**
     * An alarm between two ticks: the host saw the oldest waiting request reach the alarm threshold
     * ({@link #alarmThresholdMs()}) with every slot busy. It acts only if the queue is hot now: every live
     * slot busy, the oldest wait at least the threshold (never with {@code alarmRatio} 0), and either r =
     * max(W_pred, oldest wait) / target at least {@code hotRatio}, the hot tier's condition on what is
     * waiting now rather than on the last second's p95, or a queue that outgrows its slots
     * ({@link #outgrowsSlots}); and only once the service time is known;
     * and then as a hot tick would: the Little's-law step, the settled gate, the hot cooldown, max and the
     * guards, and the bridge rule when it adds. An alarm that adds nothing returns the state unchanged, so the
     * next tick decides as if it had not been (and the driver need not log it).
     */
    private Decision decideAlarm(State s, Observation o) {
        String signals = String.format(Locale.ROOT, "alarm: oldest wait %s ms, W_pred %s ms, target %s ms",
                fmt(o.oldestWaitMs()), fmt(o.predictedWaitMs()), fmt(p.targetP95Ms));
        double r = Math.max(o.predictedWaitMs(), o.oldestWaitMs()) / p.targetP95Ms;
        if (o.busySlots() < o.liveSlots() || !(o.oldestWaitMs() >= alarmThresholdMs())
                || !(r >= p.hotRatio || outgrowsSlots(o))) {
            // A burst that a warm tier would have to see persist (a short queue behind busy slots) is not it.
            return new Decision(0, s.tier(), signals + ": not hot now", s);
        }
        if (Double.isNaN(o.slotMs()) || o.slotMs() <= 0) {
            // Nothing has finished yet: Little's law cannot size the step, and one unit started now would
            // hold back the tick's sizing behind the settled gate. The tick decides.
            return new Decision(0, s.tier(), signals + ": service time unknown, the tick decides", s);
        }
        State held = new State(State.Tier.HOT, s.breachTicks(), s.idleTicks(), s.lastUpTick(), s.lastDownTick());
        Decision d = scaleUp(o, held, State.Tier.HOT, signals, priorRatio(s));
        if (d.delta() <= 0) {
            return new Decision(0, s.tier(), d.reason(), s);
        }
        return o.hasBridge() ? bridge.apply(o, d) : d;
    }

    /**
     * True when the requests queued now arrived faster than the live slots serve, beyond chance: the L
     * queued all came within the oldest one's wait W (FIFO), and even the one-sided 95 % lower bound of a
     * Poisson count of L (Wilson–Hilferty) over W exceeds c / S. A step to twice the capacity passes at the
     * first alarm (17 queued in 50 ms on 4 slots of 25 ms: at least 216 against 160 rps); a burst at 75 %
     * utilization does not (4 queued in 50 ms on one slot: at least 27 against 40 rps) and stays the ticks'.
     */
    static boolean outgrowsSlots(Observation o) {
        double l = o.depth();
        if (l < 1 || !(o.oldestWaitMs() > 0) || Double.isNaN(o.slotMs()) || o.slotMs() <= 0) {
            return false;
        }
        double lowerCount = l * Math.pow(1 - 1 / (9 * l) - POISSON_Z95 / (3 * Math.sqrt(l)), 3);
        return lowerCount / (o.oldestWaitMs() / 1000.0) > o.liveSlots() / (o.slotMs() / 1000.0);
    }

    /**
     * How long the queue of the previous decision could have been, in targets: below the target after a calm
     * tick, below the hot threshold after a warm one, unbounded after a hot one ({@link #arrivalRate}).
     */
    private double priorRatio(State s) {
        return State.Tier.HOT.equals(s.tier()) ? Double.POSITIVE_INFINITY
                : State.Tier.WARM.equals(s.tier()) ? p.hotRatio : 1;
    }

    private Decision decidePrimary(State s, Observation o) {
        double signal = Math.max(o.queueP95Ms(), o.predictedWaitMs());
        double r = signal / p.targetP95Ms;
        boolean wasBreach = State.Tier.WARM.equals(s.tier()) || State.Tier.HOT.equals(s.tier());
        String tier;
        if (r >= p.hotRatio) {
            tier = State.Tier.HOT;
        } else if (r > 1 || (wasBreach && r >= p.exitRatio)) {
            tier = State.Tier.WARM;
        } else if (isIdle(o)) {
            tier = State.Tier.IDLE;
        } else {
            tier = State.Tier.STEADY;
        }
        boolean breach = tier.equals(State.Tier.HOT) || tier.equals(State.Tier.WARM);
        int breachTicks = breach ? s.breachTicks() + 1 : 0;
        int idleTicks = tier.equals(State.Tier.IDLE) ? s.idleTicks() + 1 : 0;
        State held = new State(tier, breachTicks, idleTicks, s.lastUpTick(), s.lastDownTick());
        String signals = String.format(Locale.ROOT, "queue p95 %s ms, W_pred %s ms, target %s ms",
                fmt(o.queueP95Ms()), fmt(o.predictedWaitMs()), fmt(p.targetP95Ms));
        if (breach) {
            return scaleUp(o, held, tier, signals, priorRatio(s));
        }
        if (tier.equals(State.Tier.IDLE)) {
            return scaleDown(o, held, signals);
        }
        if (o.units() < p.minUnits) {
            return add(o, held, tier, p.minUnits - o.units(), "below min " + p.minUnits);
        }
        return none(held, tier, signals + ": within target");
    }

    private boolean isIdle(Observation o) {
        if (o.liveSlots() <= 0 || o.depth() > 0 || Double.isNaN(o.slotMs())) {
            return o.liveSlots() > 0 && o.depth() == 0 && o.arrivalsPerSec() == 0 && o.queueP95Ms() == 0;
        }
        double rho = o.arrivalsPerSec() * o.slotMs() / 1000.0 / o.liveSlots();
        return rho < p.idleUtilization && o.queueP95Ms() <= p.idleP95Ratio * p.targetP95Ms;
    }

    private Decision scaleUp(Observation o, State held, String tier, String signals, double priorRatio) {
        boolean hot = tier.equals(State.Tier.HOT);
        if (!hot && held.breachTicks() < p.warmTicks) {
            return none(held, tier, signals + ": breach for " + held.breachTicks() + " of " + p.warmTicks
                    + " ticks");
        }
        int cooldown = hot ? p.hotCooldownTicks : p.warmCooldownTicks;
        if (held.lastUpTick() != State.NEVER && o.tick() - held.lastUpTick() < cooldown) {
            return none(held, tier, signals + ": cooldown, " + (cooldown - (o.tick() - held.lastUpTick()))
                    + " ticks left");
        }
        int needed = neededUnits(o, priorRatio);
        String need;
        int shortfall;
        if (needed < 0) {
            // S or λ unknown (nothing has finished yet): Little's law cannot size the step; one unit.
            shortfall = o.bootingUnits() > 0 ? 0 : 1;
            need = "service time unknown";
        } else {
            shortfall = needed - o.units();
            double lambda = arrivalRate(o, priorRatio);
            need = String.format(Locale.ROOT, "need %d units (λ %s rps%s, S %s ms, L %d)", needed,
                    fmt(lambda), lambda > o.arrivalsPerSec() ? " from the queue's growth" : "", fmt(o.slotMs()),
                    o.depth());
        }
        if (shortfall <= 0) {
            if (o.bootingUnits() > 0) {
                return none(held, tier, signals + ": settled gate, " + o.bootingUnits()
                        + " units booting cover the " + need);
            }
            if (o.predictedWaitMs() <= p.targetP95Ms) {
                // The percentile covers the last second; W_pred is now. A drained queue needs nothing more.
                return none(held, tier, signals + ": " + need + ", queue already drained (the p95 lags)");
            }
            double surplus = Double.isNaN(o.slotMs()) || o.slotMs() <= 0 ? 0
                    : readyCapacity(o) - arrivalRate(o, priorRatio);
            if (surplus > 0 && o.depth() / surplus * 1000.0 <= p.drainHorizonMs) {
                // Capacity that just dialled in is draining the queue the step built: W_pred still reads
                // that backlog, but μ − λ clears it within the horizon. Another unit would only overshoot.
                return none(held, tier, signals + ": " + need + ", the queue drains in "
                        + fmt(o.depth() / surplus * 1000.0) + " ms at μ − λ " + fmt(surplus) + " rps");
            }
            // Little's law says the ready units suffice, yet requests wait now (burstier than Poisson, or
            // S is rising): one more unit, the smallest step that tests it.
            shortfall = 1;
            need = need + " but the queue breaches";
        }
        if (o.units() >= p.maxUnits) {
            return none(held, tier, signals + ": " + need + ", at max " + p.maxUnits);
        }
        int delta = Math.min(shortfall, p.maxUnits - o.units());
        TieredGuards.Allowance allowed = guards.allow(o, delta);
        if (allowed.refusal() != null) {
            return none(held, tier, signals + ": " + need + allowed.refusal());
        }
        return add(o, held, tier, allowed.units(), signals + ": " + need + allowed.note());
    }

    /** μ = c / S: the rate the dialled-in slots serve at, per second (S known and positive). */
    private static double readyCapacity(Observation o) {
        int readySlots = Math.max(0, o.readyUnits() * o.slotsPerUnit());
        return Math.max(readySlots, o.liveSlots()) / (o.slotMs() / 1000.0);
    }

    /**
     * The arrival rate to size for, per second. λ is counted over the last second, so a step that began
     * within it is diluted by the calm part (a step 0.3 s before the tick reads as a third of its rate).
     * The queue's growth bounds the rate since the step from below: a queue forms only behind saturated
     * slots, so the arrivals of the τ ≤ 1 tick since it began were μ·τ plus what it grew by, a rate of at
     * least μ + growth per tick. The growth is L minus what the previous tick's queue could have been:
     * the previous decision's tier bounds its signal, W_pred = (L' + 1)·S/c under {@code priorRatio} ×
     * target, so L' &lt; priorRatio · target · μ (priorRatio 1 after a steady or idle tick, the hot ratio
     * after a warm one, infinite after a hot one: then λ alone is used). The larger of that bound and λ is
     * used. The tick is the observation's {@code tickMs}. An alarm's observation knows more: the L requests
     * queued arrived within the oldest one's wait W, so λ is at least L / W.
     */
    double arrivalRate(Observation o, double priorRatio) {
        double lambda = o.arrivalsPerSec();
        if (o.alarm()) {
            // Every request queued now arrived after the oldest one (FIFO: none behind it has left), which has
            // waited W: they came at L / W at least, the rate since the step whatever the last second says.
            return o.depth() > 0 && o.oldestWaitMs() > 0
                    ? Math.max(lambda, o.depth() / (o.oldestWaitMs() / 1000.0)) : lambda;
        }
        if (Double.isInfinite(priorRatio) || o.depth() <= 0 || Double.isNaN(o.slotMs()) || o.slotMs() <= 0) {
            return lambda;
        }
        double mu = readyCapacity(o);
        double priorDepth = priorRatio * p.targetP95Ms / 1000.0 * mu;
        double growth = o.depth() - priorDepth;
        return growth <= 0 ? lambda : Math.max(lambda, mu + growth / (o.tickMs() / 1000.0));
    }

    /**
     * Units needed to carry λ (see {@link #arrivalRate}) and drain the backlog within the horizon at the
     * target utilization, bounded below by min; -1 when S or λ is unknown.
     */
    int neededUnits(Observation o, double priorRatio) {
        if (Double.isNaN(o.slotMs()) || o.slotMs() <= 0 || Double.isNaN(o.arrivalsPerSec())) {
            return -1;
        }
        double s = o.slotMs() / 1000.0;
        double mu = readyCapacity(o);
        double load = arrivalRate(o, priorRatio);
        if (o.bootingUnits() == 0) {
            // The backlog is sized once, by the decision that starts units; while they boot the queue grows
            // as that decision foresaw, and counting it again would add the same backlog twice.
            double backlog = o.depth() + Math.max(0, load - mu) * o.deadTimeMs() / 1000.0;
            load += backlog / (p.drainHorizonMs / 1000.0);
        }
        double slots = Math.ceil(load * s / p.targetUtilization - 1e-9);
        int units = (int) Math.ceil(slots / Math.max(1, o.slotsPerUnit()) - 1e-9);
        return Math.max(p.minUnits, units);
    }

    private Decision scaleDown(Observation o, State held, String signals) {
        String rho = Double.isNaN(o.slotMs()) ? "ρ 0" : "ρ " + fmt(o.arrivalsPerSec() * o.slotMs() / 1000.0
                / Math.max(1, o.liveSlots()));
        if (held.idleTicks() < p.idleTicks) {
            return none(held, State.Tier.IDLE, rho + ": idle for " + held.idleTicks() + " of " + p.idleTicks
                    + " ticks");
        }
        if (o.units() <= p.minUnits) {
            return none(held, State.Tier.IDLE, rho + ": idle, at min " + p.minUnits);
        }
        if (o.bootingUnits() > 0) {
            return none(held, State.Tier.IDLE, rho + ": idle, but " + o.bootingUnits() + " units still booting");
        }
        long last = Math.max(held.lastDownTick(), held.lastUpTick());
        if (last != State.NEVER && o.tick() - last < p.downCooldownTicks) {
            return none(held, State.Tier.IDLE, rho + ": idle, cooldown " + (p.downCooldownTicks - (o.tick() - last))
                    + " ticks left");
        }
        double s = Double.isNaN(o.slotMs()) ? 0 : o.slotMs() / 1000.0;
        int slots = (int) Math.ceil(o.arrivalsPerSec() * s / p.downUtilization - 1e-9);
        int keep = Math.max(p.minUnits, (int) Math.ceil((double) slots / Math.max(1, o.slotsPerUnit()) - 1e-9));
        if (keep >= o.units()) {
            return none(held, State.Tier.IDLE, rho + ": idle, but the need at utilization "
                    + fmt(p.downUtilization) + " is " + keep + " units");
        }
        int delta = keep - o.units();
        State next = new State(held.tier(), held.breachTicks(), 0, held.lastUpTick(), o.tick());
        return new Decision(delta, State.Tier.IDLE, rho + ": idle for " + held.idleTicks()
                + " ticks, " + keep + " units carry λ " + fmt(o.arrivalsPerSec()) + " rps at utilization "
                + fmt(p.downUtilization), next);
    }

    private Decision add(Observation o, State held, String tier, int delta, String reason) {
        State next = new State(tier, held.breachTicks(), held.idleTicks(), o.tick(), held.lastDownTick());
        return new Decision(delta, tier, reason + ": add " + delta, next);
    }

    private static Decision none(State held, String tier, String reason) {
        return new Decision(0, tier, reason, held);
    }

    /** A number as the log shows it: integers without a fraction, else 3 significant decimals at most. */
    static String fmt(double v) {
        if (Double.isNaN(v)) {
            return "unknown";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "inf" : "-inf";
        }
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return String.format(Locale.ROOT, "%.3f", v).replaceAll("0+$", "").replaceAll("\\.$", "");
    }

    /**
     * The policy's parameters with their defaults (docs/CONTROL.md explains each). Build with
     * {@link #DEFAULTS} and the {@code with*} copies, or {@link #fromMap} (the log's {@code params}).
     */
    public record Params(
            double targetP95Ms,
            int minUnits,
            int maxUnits,
            double targetUtilization,
            double drainHorizonMs,
            double hotRatio,
            double exitRatio,
            int warmTicks,
            int warmCooldownTicks,
            int hotCooldownTicks,
            double idleUtilization,
            double idleP95Ratio,
            int idleTicks,
            int downCooldownTicks,
            double downUtilization,
            double cpuSaturation,
            double memReserveMb,
            double bridgeMinLeadMs,
            int maxBridgeSlots,
            double gvlBoundRatio,
            double alarmRatio) {

        public static final Params DEFAULTS = new Params(50, 1, 8, 0.7, 2000, 4, 0.8, 2, 2, 0, 0.3, 0.5, 10,
                5, 0.5, 0.95, 256, 500, 16, 0.2, 1);

        /** The same parameters with the operator's three (autoscale min:, max:, target_queue_p95:). */
        public Params withBounds(int min, int max, double targetMs) {
            return new Params(targetMs, min, max, targetUtilization, drainHorizonMs, hotRatio, exitRatio,
                    warmTicks, warmCooldownTicks, hotCooldownTicks, idleUtilization, idleP95Ratio, idleTicks,
                    downCooldownTicks, downUtilization, cpuSaturation, memReserveMb, bridgeMinLeadMs, maxBridgeSlots,
                    gvlBoundRatio, alarmRatio);
        }

        Params validated() {
            RecordParams.Check check = new RecordParams.Check("tiered policy");
            check.require(targetP95Ms > 0, "targetP95Ms must be > 0");
            check.require(minUnits >= 1 && maxUnits >= minUnits, "need 1 <= minUnits <= maxUnits");
            check.require(targetUtilization > 0 && targetUtilization <= 1, "targetUtilization in (0, 1]");
            check.require(drainHorizonMs > 0, "drainHorizonMs must be > 0");
            check.require(hotRatio > 1 && exitRatio > 0 && exitRatio <= 1, "need hotRatio > 1 >= exitRatio > 0");
            check.require(warmTicks >= 1 && warmCooldownTicks >= 0 && hotCooldownTicks >= 0, "tick counts >= 0");
            check.require(idleUtilization < downUtilization && downUtilization < targetUtilization + 1e-9,
                    "need idleUtilization < downUtilization <= targetUtilization (hysteresis)");
            check.require(idleTicks >= 1 && downCooldownTicks >= 0, "idleTicks >= 1");
            check.require(cpuSaturation > 0 && memReserveMb >= 0, "cpuSaturation > 0, memReserveMb >= 0");
            check.require(bridgeMinLeadMs >= 0 && maxBridgeSlots >= 0, "bridgeMinLeadMs >= 0, maxBridgeSlots >= 0");
            check.require(gvlBoundRatio > 0 && gvlBoundRatio <= 1, "gvlBoundRatio in (0, 1]");
            check.require(alarmRatio >= 0, "alarmRatio >= 0 (0: no alarms)");
            return this;
        }

        /** Name → value, in declaration order (the log's {@code params} object). */
        public Map<String, Object> toMap() {
            return RecordParams.toMap(this);
        }

        /** The inverse of {@link #toMap}; a missing name takes its default. */
        public static Params fromMap(Map<String, ?> m) {
            return RecordParams.fromMap(Params.class, m, DEFAULTS, "tiered policy params");
        }
    }
}
