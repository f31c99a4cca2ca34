/*
 * What the autoscaling policy sees at one tick: the queue's signals over the last second and the actuator's
 * unit counts. Built by the driver (live) or the simulator, read back from the decision log by replay; the
 * policy never reads a clock or a socket itself.
 */
package dev.pumaplus.controller;

import java.util.StringJoiner;

/**
 * One tick's input to {@link Policy#decide}, built by name with {@link #builder()}. Plain values only, so a
 * decision log line holds it whole.
 * The unit counts are the primary actuator's (fork); the {@code bridge*} ones the optional fast actuator's
 * that covers the primary's dead time (docs/CONTROL.md, "Bridging the dead time").
 * Unknown measurements are {@link Double#NaN} (written as JSON null), never 0: an absent number must not
 * read as "no load" or "no contention".
 *
 * @param tick            the tick number (one per {@code tickMs}); cooldowns are counted in ticks
 * @param tickMs          the controller's tick, ms: how often it observes (one tick since the previous one)
 * @param arrivalsPerSec  λ: requests submitted in the last second, per second
 * @param queueP95Ms      queue time (T3 − T2b) p95 over the last second, ms; 0 when nothing was dispatched
 * @param queueP99Ms      queue time p99 over the last second, ms
 * @param slotMs          S: mean slot time (dispatch → link idle) over the last 10 s, ms; NaN when unknown
 * @param depth           requests waiting now (L)
 * @param busySlots       slots running a request now
 * @param liveSlots       slots dialled in now (c)
 * @param predictedWaitMs W_pred = (L + 1) · S / c now, ms (0 with an idle slot); +Infinity with no slot
 * @param units           units the actuator is running or starting (expected capacity, in units)
 * @param readyUnits      units whose every slot has dialled in (dialled-in capacity)
 * @param slotsPerUnit    slots one unit brings (threads per forked worker)
 * @param deadTimeMs      the actuator's expected dead time: add() until the unit's slots dial in, ms
 * @param memPerUnitMb    memory one more unit costs (PSS of a worker), MiB; NaN when unknown
 * @param memAvailableMb  memory the machine can still give (MemAvailable), MiB; NaN when unknown
 * @param cpuBusy         share of the machine's CPU time busy over the last tick, 0..1; NaN when unknown
 * @param gainKnown       false when it is unknown whether one more unit adds capacity at all (a thread
 *                        under the GVL without a GVL-wait measurement); the policy never adds then
 * @param gvlWaitRatio    the share of service time the workers' threads waited for their process's GVL
 *                        (GVL wait / service time of the last 10 s' requests that measured it), 0..1; NaN
 *                        when unknown (Ruby 3.1 has no GVL instrumentation API; no request measured it)
 * @param bridgeUnits        bridge slots asked for (the fast actuator: Ractors or threads), 0 with no bridge
 * @param bridgeReadyUnits   bridge slots dialled in
 * @param bridgeSlotsPerUnit slots one bridge unit brings (1); 0 means there is no bridge actuator
 * @param bridgeDeadTimeMs   the bridge's expected dead time, ms; NaN with no bridge
 * @param bridgeGainKnown    as {@code gainKnown}, for a bridge slot (false for threads on Ruby 3.1)
 * @param bridgeSharesGvl    a bridge slot runs under its process's GVL (a thread, not a Ractor): its gain is
 *                           positive only while {@code gvlWaitRatio} says the GVL is free
 * @param alarm           an alarm's observation, not a tick's: taken between two ticks because the host's
 *                        watch saw the queue hot (docs/CONTROL.md, "Reaction inside a tick"); {@code tick} is
 *                        then the number of the tick to come
 * @param oldestWaitMs    how long the oldest waiting request has waited now, ms (0 when none waits); NaN when
 *                        unknown (a tick's observation need not carry it)
 * @param concurrencyLimit the concurrency limit of fiber slots in force now (docs/CONTROL.md, "The
 *                        concurrency limit"): how many requests may run at once; 0 when none is (threads,
 *                        Ractors)
 */
public record Observation(
        long tick,
        long tickMs,
        double arrivalsPerSec,
        double queueP95Ms,
        double queueP99Ms,
        double slotMs,
        int depth,
        int busySlots,
        int liveSlots,
        double predictedWaitMs,
        int units,
        int readyUnits,
        int slotsPerUnit,
        double deadTimeMs,
        double memPerUnitMb,
        double memAvailableMb,
        double cpuBusy,
        boolean gainKnown,
        double gvlWaitRatio,
        int bridgeUnits,
        int bridgeReadyUnits,
        int bridgeSlotsPerUnit,
        double bridgeDeadTimeMs,
        boolean bridgeGainKnown,
        boolean bridgeSharesGvl,
        boolean alarm,
        double oldestWaitMs,
        int concurrencyLimit) {

    /**
     * The controller's tick, ms: the live driver runs at it (ControllerActivator injects it), the simulator
     * steps by it, and a decision log line without {@code tickMs} was written at it.
     */
    public static final long DEFAULT_TICK_MS = 1000;

    /** A builder with no field set. */
    public static Builder builder() {
        return new Builder();
    }

    /** True when a bridge actuator runs beside the primary one. */
    public boolean hasBridge() {
        return bridgeSlotsPerUnit > 0;
    }

    /**
     * Whether a concurrency limit holds requests below the live slots: then the slots are not what bounds
     * capacity, and more of them run nothing more.
     */
    public boolean limitBinds() {
        return concurrencyLimit > 0 && concurrencyLimit < liveSlots;
    }

    /** Units started and not yet dialled in: capacity still on its way. */
    public int bootingUnits() {
        return Math.max(0, units - readyUnits);
    }

    /**
     * Builds an Observation field by field, each step named as the component it sets. Every field up to
     * {@code gainKnown} must be set; {@code gvlWaitRatio} and {@code oldestWaitMs} are NaN (unknown),
     * {@code alarm} false and {@code concurrencyLimit} 0 (none) unless set; the five
     * {@code bridge*} fields up to {@code bridgeGainKnown} are set together or not at all (then the
     * observation has no bridge), and {@code bridgeSharesGvl} is false unless set. Not thread-safe; {@link #build()} may be called again after more steps.
     */
    public static final class Builder {
        private Long tick;
        private Long tickMs;
        private Double arrivalsPerSec;
        private Double queueP95Ms;
        private Double queueP99Ms;
        private Double slotMs;
        private Integer depth;
        private Integer busySlots;
        private Integer liveSlots;
        private Double predictedWaitMs;
        private Integer units;
        private Integer readyUnits;
        private Integer slotsPerUnit;
        private Double deadTimeMs;
        private Double memPerUnitMb;
        private Double memAvailableMb;
        private Double cpuBusy;
        private Boolean gainKnown;
        private Integer bridgeUnits;
        private Integer bridgeReadyUnits;
        private Integer bridgeSlotsPerUnit;
        private Double bridgeDeadTimeMs;
        private Boolean bridgeGainKnown;
        private double gvlWaitRatio = Double.NaN;
        private boolean bridgeSharesGvl;
        private boolean alarm;
        private double oldestWaitMs = Double.NaN;
        private int concurrencyLimit;

        private Builder() {
        }

        public Builder tick(long tick) {
            this.tick = tick;
            return this;
        }

        public Builder tickMs(long tickMs) {
            this.tickMs = tickMs;
            return this;
        }

        public Builder arrivalsPerSec(double arrivalsPerSec) {
            this.arrivalsPerSec = arrivalsPerSec;
            return this;
        }

        public Builder queueP95Ms(double queueP95Ms) {
            this.queueP95Ms = queueP95Ms;
            return this;
        }

        public Builder queueP99Ms(double queueP99Ms) {
            this.queueP99Ms = queueP99Ms;
            return this;
        }

        public Builder slotMs(double slotMs) {
            this.slotMs = slotMs;
            return this;
        }

        public Builder depth(int depth) {
            this.depth = depth;
            return this;
        }

        public Builder busySlots(int busySlots) {
            this.busySlots = busySlots;
            return this;
        }

        public Builder liveSlots(int liveSlots) {
            this.liveSlots = liveSlots;
            return this;
        }

        public Builder predictedWaitMs(double predictedWaitMs) {
            this.predictedWaitMs = predictedWaitMs;
            return this;
        }

        public Builder units(int units) {
            this.units = units;
            return this;
        }

        public Builder readyUnits(int readyUnits) {
            this.readyUnits = readyUnits;
            return this;
        }

        public Builder slotsPerUnit(int slotsPerUnit) {
            this.slotsPerUnit = slotsPerUnit;
            return this;
        }

        public Builder deadTimeMs(double deadTimeMs) {
            this.deadTimeMs = deadTimeMs;
            return this;
        }

        public Builder memPerUnitMb(double memPerUnitMb) {
            this.memPerUnitMb = memPerUnitMb;
            return this;
        }

        public Builder memAvailableMb(double memAvailableMb) {
            this.memAvailableMb = memAvailableMb;
            return this;
        }

        public Builder cpuBusy(double cpuBusy) {
            this.cpuBusy = cpuBusy;
            return this;
        }

        public Builder gainKnown(boolean gainKnown) {
            this.gainKnown = gainKnown;
            return this;
        }

        public Builder gvlWaitRatio(double gvlWaitRatio) {
            this.gvlWaitRatio = gvlWaitRatio;
            return this;
        }

        /** Makes it an alarm's observation (false unless set). */
        public Builder alarm(boolean alarm) {
            this.alarm = alarm;
            return this;
        }

        public Builder oldestWaitMs(double oldestWaitMs) {
            this.oldestWaitMs = oldestWaitMs;
            return this;
        }

        /** The concurrency limit in force, at least 1; 0 (the default) for none. */
        public Builder concurrencyLimit(int concurrencyLimit) {
            this.concurrencyLimit = concurrencyLimit;
            return this;
        }

        public Builder bridgeSharesGvl(boolean bridgeSharesGvl) {
            this.bridgeSharesGvl = bridgeSharesGvl;
            return this;
        }

        public Builder bridgeUnits(int bridgeUnits) {
            this.bridgeUnits = bridgeUnits;
            return this;
        }

        public Builder bridgeReadyUnits(int bridgeReadyUnits) {
            this.bridgeReadyUnits = bridgeReadyUnits;
            return this;
        }

        /** Slots one bridge unit brings, at least 1 (0 would read as "no bridge"). */
        public Builder bridgeSlotsPerUnit(int bridgeSlotsPerUnit) {
            this.bridgeSlotsPerUnit = bridgeSlotsPerUnit;
            return this;
        }

        public Builder bridgeDeadTimeMs(double bridgeDeadTimeMs) {
            this.bridgeDeadTimeMs = bridgeDeadTimeMs;
            return this;
        }

        public Builder bridgeGainKnown(boolean bridgeGainKnown) {
            this.bridgeGainKnown = bridgeGainKnown;
            return this;
        }

        /**
         * The observation.
         *
         * @throws IllegalStateException naming the fields not set, when a field up to {@code gainKnown} is
         *                               missing, or some bridge fields are set and others not; or when
         *                               {@code tickMs} or a set {@code bridgeSlotsPerUnit} is below 1
         */
        public Observation build() {
            StringJoiner missing = new StringJoiner(", ");
            need(missing, "tick", tick);
            need(missing, "tickMs", tickMs);
            need(missing, "arrivalsPerSec", arrivalsPerSec);
            need(missing, "queueP95Ms", queueP95Ms);
            need(missing, "queueP99Ms", queueP99Ms);
            need(missing, "slotMs", slotMs);
            need(missing, "depth", depth);
            need(missing, "busySlots", busySlots);
            need(missing, "liveSlots", liveSlots);
            need(missing, "predictedWaitMs", predictedWaitMs);
            need(missing, "units", units);
            need(missing, "readyUnits", readyUnits);
            need(missing, "slotsPerUnit", slotsPerUnit);
            need(missing, "deadTimeMs", deadTimeMs);
            need(missing, "memPerUnitMb", memPerUnitMb);
            need(missing, "memAvailableMb", memAvailableMb);
            need(missing, "cpuBusy", cpuBusy);
            need(missing, "gainKnown", gainKnown);
            boolean bridge = bridgeUnits != null || bridgeReadyUnits != null || bridgeSlotsPerUnit != null
                    || bridgeDeadTimeMs != null || bridgeGainKnown != null;
            if (bridge) {
                need(missing, "bridgeUnits", bridgeUnits);
                need(missing, "bridgeReadyUnits", bridgeReadyUnits);
                need(missing, "bridgeSlotsPerUnit", bridgeSlotsPerUnit);
                need(missing, "bridgeDeadTimeMs", bridgeDeadTimeMs);
                need(missing, "bridgeGainKnown", bridgeGainKnown);
            }
            if (missing.length() > 0) {
                throw new IllegalStateException("observation: not set: " + missing);
            }
            if (tickMs < 1 || (bridge && bridgeSlotsPerUnit < 1)) {
                throw new IllegalStateException("observation: tickMs " + tickMs + " and bridgeSlotsPerUnit "
                        + bridgeSlotsPerUnit + " must be at least 1");
            }
            return new Observation(tick, tickMs, arrivalsPerSec, queueP95Ms, queueP99Ms, slotMs, depth, busySlots,
                    liveSlots, predictedWaitMs, units, readyUnits, slotsPerUnit, deadTimeMs, memPerUnitMb,
                    memAvailableMb, cpuBusy, gainKnown, gvlWaitRatio, bridge ? bridgeUnits : 0,
                    bridge ? bridgeReadyUnits : 0, bridge ? bridgeSlotsPerUnit : 0,
                    bridge ? bridgeDeadTimeMs : Double.NaN, bridge && bridgeGainKnown, bridge && bridgeSharesGvl, alarm,
                    oldestWaitMs, Math.max(0, concurrencyLimit));
        }

        private static void need(StringJoiner missing, String name, Object value) {
            if (value == null) {
                missing.add(name);
            }
        }
    }
}
