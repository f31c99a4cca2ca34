/*
 * A discrete-event simulator of fiber slots behind the host's queue, in front of a dependency they all call
 * (a database, an HTTP service) whose latency rises with the calls in flight beyond a knee. Runs a
 * LimitPolicy exactly as the live limit driver does (one decide() per window, the limit applied to dispatch),
 * on a virtual clock with one seeded RNG, so every run is reproducible; without a policy every slot may run.
 */
package dev.pumaplus.controller.sim;

import dev.pumaplus.controller.DecisionLog;
import dev.pumaplus.controller.LimitDecision;
import dev.pumaplus.controller.LimitObservation;
import dev.pumaplus.controller.LimitPolicy;
import dev.pumaplus.controller.LimitState;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * The model, as the host runs it (docs/CONTROL.md, "The concurrency limit"): Poisson arrivals into one FIFO;
 * a request is dispatched while fewer than min(slots, limit) run, else it waits; an arrival that would wait
 * is shed (503) when W_pred = (L + 1)·S/c, with c = min(slots, limit) and S the mean slot time of the last
 * 10 s, exceeds the shed limit. A dispatched request is one call to the dependency, its slot time the call's
 * latency: base × max(1, c/knee)^exponent × log-normal noise, c the calls in flight as it starts (itself
 * included). With exponent 1, beyond the knee the dependency serves knee / base calls per second whatever
 * the concurrency, and every call above the knee only waits inside it, where the host can neither see nor
 * shed it; with exponent 2 it also serves fewer. Before the policy's
 * first decision, and without a policy, the limit is the slot count (as the host runs before its first
 * window). The limit's windows observe what the host's do: requests finished in the window, their mean slot
 * time, the most in flight at once, the queue's depth, the slots and the limit.
 *
 * <p>Not thread-safe; one run per instance ({@link #run()}).
 */
public final class LimitSimulator {

    /**
     * The dependency behind every request: a call's mean latency is {@code baseMs} while at most
     * {@code knee} are in flight, and baseMs · (c / knee)^{@code exponent} with c in flight beyond. Exponent 1
     * is a pool of {@code knee} workers: its throughput stays at its capacity however many calls wait in
     * it. Exponent 2 is one whose calls contend (locks, thrashing): its throughput falls as c grows.
     *
     * @param baseMs   latency of one call while at most {@code knee} are in flight (mean), ms
     * @param knee     calls in flight beyond which latency grows
     * @param exponent how steeply: 1 in proportion to the calls in flight, 2 with their square
     * @param sigma    log-normal shape of each call's latency (0.3: ±30 %)
     */
    public record Dependency(double baseMs, int knee, double exponent, double sigma) {

        /** Calls per second it completes at most (at the knee). */
        public double capacityRps() {
            return knee / (baseMs / 1000);
        }

        double latencyS(int inFlight, SplittableRandom rng) {
            double mean = baseMs / 1000 * Math.pow(Math.max(1.0, (double) inFlight / knee), exponent);
            return ServiceTime.logNormal(mean, sigma).sample(rng);
        }
    }

    /** From {@code atS} on, the dependency is {@code dependency}. */
    public record DependencyChange(double atS, Dependency dependency) {
    }

    /**
     * @param name        what the test reports
     * @param load        the offered load: each phase's Poisson rate and length
     * @param dependency  the dependency at t = 0, then its changes in time order
     * @param slots       fiber slots dialled in (all live throughout)
     * @param shedLimitMs arrivals whose W_pred exceeds this are shed; 0 = never shed
     */
    public record LimitScenario(String name, List<Scenario.Phase> load, List<DependencyChange> dependency, int slots,
                                double shedLimitMs) {

        /** 20 ms a call while at most 20 are in flight, in proportion beyond: 1000 calls/s at most. */
        public static final Dependency KNEE_20 = new Dependency(20, 20, 1, 0.3);
        /** The same, but its calls contend beyond the knee: latency grows with their square. */
        public static final Dependency CONTENDED_KNEE_20 = new Dependency(20, 20, 2, 0.3);
        /** 10 ms a call however many are in flight: a non-blocking sleep, a service that never saturates. */
        public static final Dependency SLEEP_10 = new Dependency(10, 10_000, 1, 0.3);
        /** The shed limit of the scenarios: the default, a quarter of a 10 s client timeout. */
        static final double SHED_LIMIT_MS = 2500;

        /** 100 fiber slots; 500 rps (half the dependency's capacity) for 5 s, then 2000 rps (twice it) for 30 s. */
        public static LimitScenario twiceTheCapacity() {
            return new LimitScenario("2x capacity after 5 s at 0.5x", List.of(new Scenario.Phase(500, 5),
                    new Scenario.Phase(2000, 30)), List.of(new DependencyChange(0, KNEE_20)), 100, SHED_LIMIT_MS);
        }

        /** 100 fiber slots booting into 2000 rps (twice the dependency's capacity) for 30 s. */
        public static LimitScenario bootIntoTwiceTheCapacity() {
            return new LimitScenario("2x capacity from boot", List.of(new Scenario.Phase(2000, 30)),
                    List.of(new DependencyChange(0, KNEE_20)), 100, SHED_LIMIT_MS);
        }

        /**
         * 100 fiber slots at 1500 rps for 30 s; the dependency takes 200 calls in flight until 10 s, then 20
         * (another tenant took it).
         */
        public static LimitScenario lostCapacity() {
            return new LimitScenario("knee 200 -> 20 at 10 s, 1500 rps", List.of(new Scenario.Phase(1500, 30)),
                    List.of(new DependencyChange(0, new Dependency(20, 200, 1, 0.3)), new DependencyChange(10, KNEE_20)),
                    100, SHED_LIMIT_MS);
        }

        /** As {@link #twiceTheCapacity()}, with a dependency whose calls contend beyond the knee. */
        public static LimitScenario twiceTheCapacityContended() {
            return new LimitScenario("2x a contended dependency", List.of(new Scenario.Phase(500, 5),
                    new Scenario.Phase(2000, 30)), List.of(new DependencyChange(0, CONTENDED_KNEE_20)), 100,
                    SHED_LIMIT_MS);
        }

        /**
         * 128 fiber slots, a change of request mix and a surge (the order of the fibers benchmark's cells): 4 s of
         * a cheap route (1 ms a request, 4000 rps, its calls never inflate), then 12 s of a 10 ms one that never
         * inflates either (a non-blocking sleep) at 150 rps, then 3000 rps of it: 30 must run at once.
         */
        public static LimitScenario fastWarmUpThenSlowMix() {
            return new LimitScenario("1 ms warm-up, 10 ms quiet, surge", List.of(new Scenario.Phase(4000, 4),
                    new Scenario.Phase(150, 12), new Scenario.Phase(3000, 8)),
                    List.of(new DependencyChange(0, new Dependency(1, 10_000, 1, 0.3)),
                            new DependencyChange(4, SLEEP_10)), 128, SHED_LIMIT_MS);
        }

        /**
         * 100 fiber slots in front of the knee-20 dependency at twice its capacity for 8 s (the limit comes
         * down to it), then 8 s at 100 rps, during which (at 12 s, the overload's queue drained) the dependency
         * grows to take 200 calls at once, then 3000 rps: 60 must run at once, more than the overload left.
         */
        public static LimitScenario surgeAfterTheKneeGrewWhileQuiet() {
            return new LimitScenario("knee 20 -> 200 while quiet, surge", List.of(new Scenario.Phase(2000, 8),
                    new Scenario.Phase(100, 8), new Scenario.Phase(3000, 8)),
                    List.of(new DependencyChange(0, KNEE_20),
                            new DependencyChange(12, new Dependency(20, 200, 1, 0.3))),
                    100, SHED_LIMIT_MS);
        }

        /**
         * 100 fiber slots: 4 s of a cheap route (1 ms, 4000 rps), 6 s of a light 20 ms one (100 rps), then
         * 2000 rps of it, twice the capacity of the knee-20 dependency it calls: the inflation is real.
         */
        public static LimitScenario fastWarmUpThenTwiceTheCapacity() {
            return new LimitScenario("1 ms warm-up, then 2x capacity", List.of(new Scenario.Phase(4000, 4),
                    new Scenario.Phase(100, 6), new Scenario.Phase(2000, 25)),
                    List.of(new DependencyChange(0, new Dependency(1, 10_000, 1, 0.3)),
                            new DependencyChange(4, KNEE_20)), 100, SHED_LIMIT_MS);
        }

        double seconds() {
            return load.stream().mapToDouble(Scenario.Phase::seconds).sum();
        }

        double rateAt(double t) {
            double start = 0;
            for (Scenario.Phase p : load) {
                if (t < start + p.seconds()) {
                    return p.rps();
                }
                start += p.seconds();
            }
            return 0;
        }

        Dependency dependencyAt(double t) {
            Dependency d = dependency.get(0).dependency();
            for (DependencyChange c : dependency) {
                if (c.atS() <= t) {
                    d = c.dependency();
                }
            }
            return d;
        }
    }

    /**
     * What a run measured, by whole second of simulated time (index = second).
     *
     * @param windowEndS         the end of each window, s (with a policy)
     * @param limits             the limit decided at the end of each window
     * @param completed          requests finished in each second
     * @param shed               arrivals shed in each second
     * @param maxInFlight        the most requests running at once in each second (= calls in the dependency)
     * @param slotMs             the slot times of the requests finished in each second, ms
     * @param queueMs            the queue times of the requests dispatched in each second, ms
     */
    public record LimitResult(double[] windowEndS, int[] limits, long[] completed, long[] shed, int[] maxInFlight,
                              List<double[]> slotMs, List<double[]> queueMs) {

        /**
         * Seconds after {@code fromS} until the limit stays within [lo, hi] for every later window; +Infinity
         * when the last window is outside.
         */
        public double settleSeconds(double fromS, int lo, int hi) {
            double settledAt = fromS;
            for (int i = 0; i < limits.length; i++) {
                if (windowEndS[i] > fromS && (limits[i] < lo || limits[i] > hi)) {
                    settledAt = windowEndS[i];
                }
            }
            return limits.length > 0 && (limits[limits.length - 1] < lo || limits[limits.length - 1] > hi)
                    ? Double.POSITIVE_INFINITY : settledAt - fromS;
        }

        /** The lowest and highest limit of the windows ending in [fromS, toS). */
        public int[] limitRange(double fromS, double toS) {
            int lo = Integer.MAX_VALUE;
            int hi = Integer.MIN_VALUE;
            for (int i = 0; i < limits.length; i++) {
                if (windowEndS[i] >= fromS && windowEndS[i] < toS) {
                    lo = Math.min(lo, limits[i]);
                    hi = Math.max(hi, limits[i]);
                }
            }
            return new int[] {lo, hi};
        }

        /**
         * Windows ending after {@code fromS} until one whose limit is at least {@code needed}: 0 when the first
         * already was; the number of windows after {@code fromS} plus one when none was.
         */
        public int windowsToReach(double fromS, int needed) {
            int n = 0;
            for (int i = 0; i < limits.length; i++) {
                if (windowEndS[i] > fromS) {
                    if (limits[i] >= needed) {
                        return n;
                    }
                    n++;
                }
            }
            return n + 1;
        }

        /** Requests finished per second over the whole seconds [fromS, toS). */
        public double goodputRps(int fromS, int toS) {
            long n = 0;
            for (int s = fromS; s < toS; s++) {
                n += completed[s];
            }
            return (double) n / (toS - fromS);
        }

        /** Arrivals shed over the whole seconds [fromS, toS). */
        public long shed(int fromS, int toS) {
            return Arrays.stream(shed, fromS, toS).sum();
        }

        /** The most requests in flight at once (= calls in the dependency) over the whole seconds [fromS, toS). */
        public int maxInFlight(int fromS, int toS) {
            return Arrays.stream(maxInFlight, fromS, toS).max().orElse(0);
        }

        /** The p-quantile of the slot times of requests finished in [fromS, toS), ms. */
        public double slotQuantileMs(double p, int fromS, int toS) {
            return quantile(slotMs, p, fromS, toS);
        }

        /** The p-quantile of the queue times of requests dispatched in [fromS, toS), ms. */
        public double queueQuantileMs(double p, int fromS, int toS) {
            return quantile(queueMs, p, fromS, toS);
        }

        private static double quantile(List<double[]> bySecond, double p, int fromS, int toS) {
            double[] all = bySecond.subList(fromS, toS).stream().flatMapToDouble(Arrays::stream).sorted().toArray();
            return all.length == 0 ? Double.NaN : all[Math.min(all.length - 1, (int) Math.ceil(p * all.length) - 1)];
        }
    }

    /** The host's main window, s: S for W_pred is the mean slot time over it. */
    private static final int SLOT_MEAN_SECONDS = 10;

    private final LimitScenario scenario;
    private final LimitPolicy policy;
    private final SplittableRandom rng;
    private final List<String> log;

    /**
     * @param policy the limiter, or null for none (every slot may run)
     * @param log    receives a decision log line for every window, or null
     */
    public LimitSimulator(LimitScenario scenario, LimitPolicy policy, long seed, List<String> log) {
        this.scenario = scenario;
        this.policy = policy;
        this.rng = new SplittableRandom(seed);
        this.log = log;
    }

    /** One call in the dependency: when it ends. */
    private record Call(double endS, double startS) {
    }

    /** Runs the scenario to its end (requests still queued or running then are not counted). */
    public LimitResult run() {
        double end = scenario.seconds();
        int seconds = (int) Math.ceil(end);
        long[] completed = new long[seconds];
        long[] shed = new long[seconds];
        int[] maxInFlight = new int[seconds];
        List<List<Double>> slotMs = new ArrayList<>();
        List<List<Double>> queueMs = new ArrayList<>();
        for (int s = 0; s < seconds; s++) {
            slotMs.add(new ArrayList<>());
            queueMs.add(new ArrayList<>());
        }
        double[] slotSum = new double[seconds];
        List<Double> windowEnds = new ArrayList<>();
        List<Integer> limits = new ArrayList<>();

        PriorityQueue<Call> calls = new PriorityQueue<>((a, b) -> Double.compare(a.endS(), b.endS()));
        ArrayDeque<Double> waiting = new ArrayDeque<>();
        double windowS = policy == null ? Double.POSITIVE_INFINITY : policy.windowMs() / 1000.0;
        double nextWindow = windowS;
        double nextArrival = nextArrival(0);
        int limit = scenario.slots();
        LimitState state = LimitState.initial();
        long window = 0;
        int windowCompleted = 0;
        double windowSlotSum = 0;
        int peak = 0;
        double t = 0;
        while (true) {
            double nextEnd = calls.isEmpty() ? Double.POSITIVE_INFINITY : calls.peek().endS();
            t = Math.min(nextArrival, Math.min(nextEnd, nextWindow));
            if (t >= end) {
                break;
            }
            int second = (int) t;
            if (t == nextEnd) {
                Call c = calls.poll();
                double slot = c.endS() - c.startS();
                completed[second]++;
                slotSum[second] += slot;
                slotMs.get(second).add(slot * 1000);
                windowCompleted++;
                windowSlotSum += slot;
            } else if (t == nextArrival) {
                nextArrival = nextArrival(t);
                int capacity = Math.min(scenario.slots(), limit);
                if (calls.size() >= capacity || !waiting.isEmpty()) {
                    double s = meanSlotS(completed, slotSum, second);
                    double wait = (waiting.size() + 1) * s / capacity;
                    if (scenario.shedLimitMs() > 0 && !Double.isNaN(s) && wait * 1000 > scenario.shedLimitMs()) {
                        shed[second]++;
                        continue;
                    }
                }
                waiting.addLast(t);
            } else {
                LimitObservation o = new LimitObservation(window++, windowS * 1000, windowCompleted,
                        windowCompleted == 0 ? Double.NaN : windowSlotSum / windowCompleted * 1000, peak,
                        waiting.size(), scenario.slots(), limit, Double.NaN);
                LimitDecision d = policy.decide(state, o);
                if (log != null) {
                    log.add(DecisionLog.limitLine(null, policy, state, o, d));
                }
                state = d.next();
                limit = d.limit();
                windowEnds.add(t);
                limits.add(limit);
                windowCompleted = 0;
                windowSlotSum = 0;
                peak = calls.size();
                nextWindow += windowS;
            }
            int capacity = Math.min(scenario.slots(), limit);
            while (!waiting.isEmpty() && calls.size() < capacity) {
                double arrived = waiting.pollFirst();
                queueMs.get(second).add((t - arrived) * 1000);
                int inFlight = calls.size() + 1;
                calls.add(new Call(t + scenario.dependencyAt(t).latencyS(inFlight, rng), t));
            }
            peak = Math.max(peak, calls.size());
            maxInFlight[second] = Math.max(maxInFlight[second], calls.size());
        }
        return new LimitResult(windowEnds.stream().mapToDouble(Double::doubleValue).toArray(),
                limits.stream().mapToInt(Integer::intValue).toArray(), completed, shed, maxInFlight,
                slotMs.stream().map(l -> l.stream().mapToDouble(Double::doubleValue).toArray()).toList(),
                queueMs.stream().map(l -> l.stream().mapToDouble(Double::doubleValue).toArray()).toList());
    }

    /** The next Poisson arrival after {@code t} at the rate in force then (+Infinity after the last phase). */
    private double nextArrival(double t) {
        double next = t;
        while (true) {
            double rate = scenario.rateAt(next);
            double phaseEnd = phaseEnd(next);
            if (phaseEnd == Double.POSITIVE_INFINITY) {
                return phaseEnd;
            }
            double draw = rate <= 0 ? phaseEnd : next - Math.log(1 - rng.nextDouble()) / rate;
            if (draw < phaseEnd) {
                return draw;
            }
            next = phaseEnd; // memoryless: draw again at the next phase's rate
        }
    }

    private double phaseEnd(double t) {
        double start = 0;
        for (Scenario.Phase p : scenario.load()) {
            if (t < start + p.seconds()) {
                return start + p.seconds();
            }
            start += p.seconds();
        }
        return Double.POSITIVE_INFINITY;
    }

    /** S: the mean slot time of the requests finished in the last {@value #SLOT_MEAN_SECONDS} s, s; NaN before any. */
    private static double meanSlotS(long[] completed, double[] slotSum, int second) {
        long n = 0;
        double sum = 0;
        for (int s = Math.max(0, second - SLOT_MEAN_SECONDS); s <= second; s++) {
            n += completed[s];
            sum += slotSum[s];
        }
        return n == 0 ? Double.NaN : sum / n;
    }
}
