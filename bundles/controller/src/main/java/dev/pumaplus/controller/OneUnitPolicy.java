/*
 * The Go predecessor's control law, kept as a baseline for the simulator and as a second policy to swap
 * to: one unit per decision, never while a unit is still booting, a cooldown between additions.
 */
package dev.pumaplus.controller;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Adds one unit when queue p95 exceeds the target, no unit is booting and {@code cooldownTicks} have
 * passed since the last addition; removes one unit after {@code idleTicks} ticks with p95 under half the
 * target and ρ under 0.3. Pure, like every {@link Policy}. It exists to be beaten: the simulator's
 * comparison shows what adding the whole shortfall at once buys.
 */
public final class OneUnitPolicy implements Policy {

    public static final String ID = "one-unit/1";

    private final double targetP95Ms;
    private final int minUnits;
    private final int maxUnits;
    private final int cooldownTicks;
    private final int idleTicks;

    public OneUnitPolicy(double targetP95Ms, int minUnits, int maxUnits, int cooldownTicks, int idleTicks) {
        if (targetP95Ms <= 0 || minUnits < 1 || maxUnits < minUnits || cooldownTicks < 0 || idleTicks < 1) {
            throw new IllegalArgumentException("one-unit policy: bad parameters");
        }
        this.targetP95Ms = targetP95Ms;
        this.minUnits = minUnits;
        this.maxUnits = maxUnits;
        this.cooldownTicks = cooldownTicks;
        this.idleTicks = idleTicks;
    }

    /** Built from the log's {@code params}; missing names take the defaults (50 ms, 1..8, 3, 10). */
    public static OneUnitPolicy fromMap(Map<String, ?> m) {
        return new OneUnitPolicy(num(m, "targetP95Ms", 50).doubleValue(), num(m, "minUnits", 1).intValue(),
                num(m, "maxUnits", 8).intValue(), num(m, "cooldownTicks", 3).intValue(),
                num(m, "idleTicks", 10).intValue());
    }

    private static Number num(Map<String, ?> m, String key, Number fallback) {
        Object v = m.get(key);
        return v instanceof Number n ? n : fallback;
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public Map<String, Object> params() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("targetP95Ms", targetP95Ms);
        m.put("minUnits", minUnits);
        m.put("maxUnits", maxUnits);
        m.put("cooldownTicks", cooldownTicks);
        m.put("idleTicks", idleTicks);
        return m;
    }

    @Override
    public Decision decide(State s, Observation o) {
        if (o.alarm()) {
            return new Decision(0, s.tier(), "alarm: this policy decides at ticks only", s);
        }
        String p95 = String.format(Locale.ROOT, "queue p95 %s ms, target %s ms", TieredPolicy.fmt(o.queueP95Ms()),
                TieredPolicy.fmt(targetP95Ms));
        if (o.queueP95Ms() > targetP95Ms) {
            State held = new State(State.Tier.WARM, s.breachTicks() + 1, 0, s.lastUpTick(), s.lastDownTick());
            if (o.bootingUnits() > 0) {
                return new Decision(0, held.tier(), p95 + ": " + o.bootingUnits() + " units still booting", held);
            }
            if (s.lastUpTick() != State.NEVER && o.tick() - s.lastUpTick() < cooldownTicks) {
                return new Decision(0, held.tier(), p95 + ": cooldown", held);
            }
            if (o.units() >= maxUnits) {
                return new Decision(0, held.tier(), p95 + ": at max " + maxUnits, held);
            }
            State next = new State(held.tier(), held.breachTicks(), 0, o.tick(), s.lastDownTick());
            return new Decision(1, held.tier(), p95 + ": add 1", next);
        }
        double rho = Double.isNaN(o.slotMs()) || o.liveSlots() == 0 ? 0
                : o.arrivalsPerSec() * o.slotMs() / 1000.0 / o.liveSlots();
        if (o.queueP95Ms() <= targetP95Ms / 2 && rho < 0.3 && o.depth() == 0) {
            State held = new State(State.Tier.IDLE, 0, s.idleTicks() + 1, s.lastUpTick(), s.lastDownTick());
            if (held.idleTicks() >= idleTicks && o.units() > minUnits && o.bootingUnits() == 0) {
                return new Decision(-1, held.tier(), p95 + ": idle for " + held.idleTicks() + " ticks: remove 1",
                        new State(held.tier(), 0, 0, s.lastUpTick(), o.tick()));
            }
            return new Decision(0, held.tier(), p95 + ": idle for " + held.idleTicks() + " ticks", held);
        }
        State held = new State(State.Tier.STEADY, 0, 0, s.lastUpTick(), s.lastDownTick());
        return new Decision(0, held.tier(), p95 + ": within target", held);
    }
}
