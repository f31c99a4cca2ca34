/*
 * A discrete-event simulator of the host's one queue in front of a scaled pool of slots: Poisson arrivals,
 * sampled slot times, units that become live a dead time after the policy adds them, optional shedding.
 * Runs any Policy exactly as the live driver does (one decide() per simulated tick), on a virtual clock
 * with one seeded RNG, so every run is reproducible. With a bridge, its one-slot units go live the bridge's
 * own dead time after they are asked for. A policy that reacts to alarms ({@link Policy#alarmThresholdMs()})
 * is also asked between ticks, as the host's hot-queue watch asks the live driver. A fed run takes its
 * arrivals from a caller instead: one replica behind ReplicaSimulator's load balancer.
 */
package dev.pumaplus.controller.sim;

import dev.pumaplus.controller.Decision;
import dev.pumaplus.controller.DecisionLog;
import dev.pumaplus.controller.Observation;
import dev.pumaplus.controller.Policy;
import dev.pumaplus.controller.State;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * The model: FIFO queue, c live slots, a request waits until a slot is free (queue time = dispatch −
 * arrival, as the host measures T3 − T2b). An added unit's slots go live {@code deadTimeS} later; a
 * removed unit's idle slots leave at once and its busy ones when their request finishes. Arrivals whose
 * W_pred exceeds the scenario's shed limit are refused (counted, never queued). Observations are built
 * like the host's: λ, queue p95/p99 over the last second, S as the mean slot time over the last 10 s,
 * W_pred = (L + 1)·S/c. CPU is not modelled (NaN, so the CPU guard never fires here). Bridge slots are
 * slots like the units' (c counts them; a removed one leaves like a unit's slot) and do not count as units.
 * The hot-queue watch is the host's (Dispatcher): while requests wait, one check is pending for the moment
 * the oldest will have waited the threshold; a check that finds it waited that long with every slot busy
 * asks the policy for an alarm's decision (λ and the percentiles of the last tick, as the host's last
 * completed second, and the oldest wait now), applied and logged only when it changes something.
 *
 * <p>Not thread-safe; one run per instance ({@link #run()}).
 */
public final class Simulator {

    /** What an event does when its time comes ({@link #handle}). */
    private enum Kind { ARRIVAL, RATE_CHANGE, COMPLETE, UNIT_READY, TICK, BRIDGE_READY, HOT_CHECK }

    /**
     * The simulated tick, s: the live driver's. λ and the queue percentiles are counted over one tick, which
     * is the host's one-second window at the default tick.
     */
    private static final double TICK_S = Observation.DEFAULT_TICK_MS / 1000.0;
    /** The host's main window (QueueMetrics.MAIN_WINDOW_SECONDS) in ticks: ρ's λ is counted over it. */
    private static final int UTILIZATION_WINDOW_TICKS = 10;

    private final Scenario scenario;
    private final Policy policy;
    private final SplittableRandom rng;
    private final List<String> log;

    private final PriorityQueue<Event> events = new PriorityQueue<>();
    private final ArrayDeque<double[]> queue = new ArrayDeque<>(); // {arrival time, request index}
    private long seq;
    private double now;
    private int live;
    private int busy;
    private int retiring;
    private int units;
    private int readyUnits;
    private int cancelBoots;
    private int bridgeUnits;
    private int bridgeReady;
    private int cancelBridgeBoots;
    private int arrivalsThisTick;
    /** Arrivals of each of the last {@link #UTILIZATION_WINDOW_TICKS} ticks, oldest first: λ of ρ. */
    private final ArrayDeque<Integer> recentArrivals = new ArrayDeque<>();
    private final List<Double> waitsThisTick = new ArrayList<>();
    private final ArrayDeque<double[]> completions = new ArrayDeque<>(); // {time, slot seconds}
    private State state = State.initial();
    /** The hot-queue watch's threshold, s; NaN when the policy decides at ticks only. */
    private final double alarmThresholdS;
    private boolean hotCheckPending;
    /** λ and queue p95/p99 (ms) of the last tick: what an alarm between ticks sees of the last second. */
    private double lastArrivalsPerSec;
    private double lastP95Ms;
    private double lastP99Ms;
    private int alarms;

    // results
    private double[] arrivalAt = new double[1 << 14];
    private double[] waited = new double[1 << 14]; // -1 = shed, NaN = never dispatched
    private int requests;
    private int shed;
    private int adds;
    private int maxUnits;
    private double unitSeconds;
    private final List<Integer> unitsBySecond = new ArrayList<>();

    /**
     * @param seed the RNG seed: the same seed, scenario and policy give the same run
     * @param log  receives each tick's decision log line, or null
     */
    public Simulator(Scenario scenario, Policy policy, long seed, List<String> log) {
        this.scenario = scenario;
        this.policy = policy;
        this.rng = new SplittableRandom(seed);
        this.log = log;
        this.alarmThresholdS = policy.alarmThresholdMs() / 1000;
    }

    /** Runs the scenario to its end, then lets the queue drain (no more arrivals, no more decisions). */
    public SimResult run() {
        begin();
        scheduleArrival();
        schedule(TICK_S, Kind.TICK, 0);
        double end = scenario.seconds();
        while (!events.isEmpty()) {
            Event e = events.poll();
            if (e.time > end + 120) {
                break;
            }
            handle(e);
        }
        return result();
    }

    /**
     * Starts a fed run: the scenario's own arrivals are not drawn (its phases give only the length during
     * which the policy ticks); the caller offers each arrival ({@link #offer}) and moves the clock
     * ({@link #advanceTo}). This is one replica behind a balancer that owns the arrival process
     * ({@link ReplicaSimulator}). Call once, instead of {@link #run()}.
     */
    public void start() {
        begin();
        schedule(TICK_S, Kind.TICK, 0);
    }

    /** Fed run: handles every event up to and including {@code t} (s, this replica's clock), then stands at t. */
    public void advanceTo(double t) {
        while (!events.isEmpty() && events.peek().time <= t) {
            handle(events.poll());
        }
        now = Math.max(now, t);
    }

    /** Fed run: one request arrives at {@code t} (s, this replica's clock, not before the last call's time). */
    public void offer(double t) {
        advanceTo(t);
        admit();
    }

    /**
     * ρ as the host's /metrics reports it ({@code puma_plus_utilization}): λ over the last 10 completed ticks
     * (shed arrivals included) × the mean slot time of the last 10 s ÷ live slots now. NaN with no live
     * slot; 0 before a request has finished.
     */
    public double utilization() {
        if (live <= 0) {
            return Double.NaN;
        }
        double slotMs = meanSlotMs();
        if (Double.isNaN(slotMs) || recentArrivals.isEmpty()) {
            return 0;
        }
        double arrivals = recentArrivals.stream().mapToInt(Integer::intValue).sum();
        return arrivals / (recentArrivals.size() * TICK_S) * slotMs / 1000 / live;
    }

    /** W_pred now, s, as /metrics reports it ({@code puma_plus_predicted_wait_seconds}). */
    public double predictedWaitSeconds() {
        return predictedWaitMs() / 1000;
    }

    /** What the run measured so far (a fed run: call after the last {@link #advanceTo}). */
    public SimResult result() {
        return new SimResult(scenario, policy.id(), Arrays.copyOf(arrivalAt, requests),
                Arrays.copyOf(waited, requests), shed, adds, alarms, maxUnits, unitSeconds / scenario.seconds(),
                List.copyOf(unitsBySecond));
    }

    private void begin() {
        units = scenario.initialUnits();
        readyUnits = units;
        live = units * scenario.slotsPerUnit();
        maxUnits = units;
    }

    private void handle(Event e) {
        now = e.time;
        switch (e.kind) {
            case ARRIVAL -> arrive();
            case RATE_CHANGE -> scheduleArrival();
            case COMPLETE -> complete(e.data);
            case UNIT_READY -> unitReady();
            case BRIDGE_READY -> bridgeReady();
            case HOT_CHECK -> hotCheck();
            case TICK -> {
                if (now <= scenario.seconds() + 1e-9) {
                    tick((long) Math.round(now / TICK_S));
                }
            }
        }
    }

    private void schedule(double at, Kind kind, double data) {
        events.add(new Event(at, seq++, kind, data));
    }

    private void scheduleArrival() {
        double rate = scenario.rateAt(now);
        double boundary = scenario.phaseEnd(now);
        if (rate <= 0) {
            if (!Double.isInfinite(boundary)) {
                schedule(boundary, Kind.RATE_CHANGE, 0);
            }
            return;
        }
        double next = now - Math.log(1 - rng.nextDouble()) / rate;
        // Poisson is memoryless: at a rate change, drop the pending draw and draw again at the new rate.
        if (next >= boundary) {
            schedule(boundary, Kind.RATE_CHANGE, 0);
        } else {
            schedule(next, Kind.ARRIVAL, 0);
        }
    }

    private void arrive() {
        scheduleArrival();
        admit();
    }

    private void admit() {
        arrivalsThisTick++;
        int index = record(now);
        if (scenario.shedLimitMs() > 0 && predictedWaitMs() > scenario.shedLimitMs()) {
            waited[index] = -1;
            shed++;
            return;
        }
        if (live - busy > 0) {
            dispatch(now, index);
        } else {
            queue.add(new double[] {now, index});
            armHotCheck();
        }
    }

    /** As the host's watch: one check pending while requests wait, for when the oldest reaches the threshold. */
    private void armHotCheck() {
        if (hotCheckPending || Double.isNaN(alarmThresholdS) || queue.isEmpty()) {
            return;
        }
        hotCheckPending = true;
        schedule(Math.max(now, queue.peekFirst()[0] + alarmThresholdS), Kind.HOT_CHECK, 0);
    }

    private void hotCheck() {
        if (queue.isEmpty() || now > scenario.seconds() + 1e-9) {
            hotCheckPending = false;
            return;
        }
        double waited = now - queue.peekFirst()[0];
        boolean hot = waited >= alarmThresholdS - 1e-12;
        schedule(hot ? now + alarmThresholdS : queue.peekFirst()[0] + alarmThresholdS, Kind.HOT_CHECK, 0);
        if (hot && busy >= live) {
            alarm(waited);
        }
    }

    /** An alarm's decision, numbered as the tick to come; applied and logged when it changes something. */
    private void alarm(double oldestWaitS) {
        long next = (long) Math.floor(now / TICK_S + 1e-9) + 1;
        Observation o = observation(next, lastArrivalsPerSec, lastP95Ms, lastP99Ms).alarm(true)
                .oldestWaitMs(oldestWaitS * 1000).build();
        Decision d = policy.decide(state, o);
        if (d.delta() == 0 && d.bridgeDelta() == 0) {
            return;
        }
        alarms++;
        if (log != null) {
            log.add(DecisionLog.line(null, policy, state, o, d));
        }
        state = d.next();
        apply(d.delta());
        applyBridge(d.bridgeDelta());
    }

    private int record(double t) {
        if (requests == arrivalAt.length) {
            arrivalAt = Arrays.copyOf(arrivalAt, requests * 2);
            waited = Arrays.copyOf(waited, requests * 2);
        }
        arrivalAt[requests] = t;
        waited[requests] = Double.NaN;
        return requests++;
    }

    private void dispatch(double arrival, int index) {
        busy++;
        double wait = now - arrival;
        waited[index] = wait;
        waitsThisTick.add(wait);
        double slot = scenario.service().sample(rng);
        schedule(now + slot, Kind.COMPLETE, slot);
    }

    private void complete(double slot) {
        busy--;
        completions.add(new double[] {now, slot});
        if (retiring > 0) {
            retiring--;
            live--;
            return;
        }
        drainQueue();
    }

    private void drainQueue() {
        while (live - busy > 0 && !queue.isEmpty()) {
            double[] q = queue.poll();
            dispatch(q[0], (int) q[1]);
        }
    }

    private void unitReady() {
        if (cancelBoots > 0) {
            cancelBoots--;
            return;
        }
        readyUnits++;
        live += scenario.slotsPerUnit();
        drainQueue();
    }

    private void bridgeReady() {
        if (cancelBridgeBoots > 0) {
            cancelBridgeBoots--;
            return;
        }
        bridgeReady++;
        live++;
        drainQueue();
    }

    private double meanSlotMs() {
        while (!completions.isEmpty() && completions.peekFirst()[0] < now - 10) {
            completions.pollFirst();
        }
        if (completions.isEmpty()) {
            return Double.NaN;
        }
        double sum = 0;
        for (double[] c : completions) {
            sum += c[1];
        }
        return sum / completions.size() * 1000;
    }

    private double predictedWaitMs() {
        if (busy < live && queue.isEmpty()) {
            return 0;
        }
        if (live <= 0) {
            return Double.POSITIVE_INFINITY;
        }
        double s = meanSlotMs();
        return Double.isNaN(s) ? 0 : (queue.size() + 1) * s / live;
    }

    private void tick(long tick) {
        double[] w = waitsThisTick.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        lastArrivalsPerSec = arrivalsThisTick / TICK_S;
        lastP95Ms = percentileMs(w, 0.95);
        lastP99Ms = percentileMs(w, 0.99);
        Observation o = observation(tick, lastArrivalsPerSec, lastP95Ms, lastP99Ms).build();
        Decision d = policy.decide(state, o);
        if (log != null) {
            log.add(DecisionLog.line(null, policy, state, o, d));
        }
        state = d.next();
        apply(d.delta());
        applyBridge(d.bridgeDelta());
        unitSeconds += units * TICK_S;
        unitsBySecond.add(units);
        recentArrivals.addLast(arrivalsThisTick);
        if (recentArrivals.size() > UTILIZATION_WINDOW_TICKS) {
            recentArrivals.removeFirst();
        }
        arrivalsThisTick = 0;
        waitsThisTick.clear();
        schedule(now + TICK_S, Kind.TICK, 0);
    }

    /** The observation now, as the host's sample has it, with the last second's λ and percentiles given. */
    private Observation.Builder observation(long tick, double arrivalsPerSec, double p95Ms, double p99Ms) {
        Observation.Builder b = Observation.builder()
                .tick(tick)
                .tickMs(Observation.DEFAULT_TICK_MS)
                .arrivalsPerSec(arrivalsPerSec)
                .queueP95Ms(p95Ms)
                .queueP99Ms(p99Ms)
                .slotMs(meanSlotMs())
                .depth(queue.size())
                .busySlots(busy)
                .liveSlots(live)
                .predictedWaitMs(predictedWaitMs())
                .units(units)
                .readyUnits(readyUnits)
                .slotsPerUnit(scenario.slotsPerUnit())
                .deadTimeMs(scenario.deadTimeS() * 1000)
                .memPerUnitMb(scenario.memPerUnitMb())
                .memAvailableMb(Double.NaN)
                .cpuBusy(Double.NaN)
                .gainKnown(true);
        if (scenario.hasBridge()) {
            b.bridgeUnits(bridgeUnits)
                    .bridgeReadyUnits(bridgeReady)
                    .bridgeSlotsPerUnit(1)
                    .bridgeDeadTimeMs(scenario.bridgeDeadTimeS() * 1000)
                    .bridgeGainKnown(true);
        }
        return b;
    }

    private void apply(int delta) {
        if (delta > 0) {
            adds++;
            units += delta;
            maxUnits = Math.max(maxUnits, units);
            for (int i = 0; i < delta; i++) {
                schedule(now + scenario.deadTimeS(), Kind.UNIT_READY, 0);
            }
        }
        for (int i = 0; i < -delta && units > 0; i++) {
            units--;
            if (units >= readyUnits) {
                cancelBoots++; // a unit still booting is the cheapest to give up
                continue;
            }
            readyUnits--;
            int idle = Math.min(scenario.slotsPerUnit(), live - busy - 0);
            live -= idle;
            retiring += scenario.slotsPerUnit() - idle;
        }
    }

    private void applyBridge(int delta) {
        for (int i = 0; i < delta; i++) {
            bridgeUnits++;
            schedule(now + scenario.bridgeDeadTimeS(), Kind.BRIDGE_READY, 0);
        }
        for (int i = 0; i < -delta && bridgeUnits > 0; i++) {
            bridgeUnits--;
            if (bridgeUnits >= bridgeReady) {
                cancelBridgeBoots++;
                continue;
            }
            bridgeReady--;
            if (live - busy > 0) {
                live--;
            } else {
                retiring++;
            }
        }
    }

    /** The p-quantile (nearest rank) of sorted seconds, in ms; 0 for none. */
    static double percentileMs(double[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(p * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank))] * 1000;
    }

    private record Event(double time, long seq, Kind kind, double data) implements Comparable<Event> {
        @Override
        public int compareTo(Event o) {
            int c = Double.compare(time, o.time);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }
}
