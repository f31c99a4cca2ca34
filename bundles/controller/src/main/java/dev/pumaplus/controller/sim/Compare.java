/*
 * The simulator's comparison tables: runs each scenario under each policy (and a static peak-provisioned
 * pool) with the same seed and prints queue-time percentiles, recovery time, units and shed requests side
 * by side; the 12× step with a Ractor bridge is one more row, under the default policy. Then the fiber
 * slots' concurrency limit against a dependency that slows beyond 20 calls in flight (in proportion, or
 * with their square), with the default limiter and without one, and its surges after a quiet stretch.
 * `mvn -pl bundles/controller exec` is not needed: run it from the built jar (docs/CONTROL.md).
 */
package dev.pumaplus.controller.sim;

import dev.pumaplus.controller.Decision;
import dev.pumaplus.controller.GradientLimitPolicy;
import dev.pumaplus.controller.LimitPolicy;
import dev.pumaplus.controller.OneUnitPolicy;
import dev.pumaplus.controller.Observation;
import dev.pumaplus.controller.Policy;
import dev.pumaplus.controller.State;
import dev.pumaplus.controller.TieredPolicy;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code java -cp <host lib>/*:controller.jar dev.pumaplus.controller.sim.Compare [--logs DIR] [SEED]}: the
 * tables on stdout; with {@code --logs}, each run's decision log as {@code DIR/<scenario>-<policy>.jsonl}.
 */
public final class Compare {

    private Compare() {
    }

    public static void main(String[] args) throws java.io.IOException {
        long seed = 1;
        java.nio.file.Path logs = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--logs") && i + 1 < args.length) {
                logs = java.nio.file.Path.of(args[++i]);
            } else {
                seed = Long.parseLong(args[i]);
            }
        }
        print(System.out, seed, logs);
    }

    /** The policies compared: the default tiered policy (max 32), the one-unit baseline, static peak. */
    static List<Policy> policies(int peakUnits) {
        TieredPolicy.Params p = TieredPolicy.Params.DEFAULTS.withBounds(1, 32, 50);
        return List.of(new TieredPolicy(p), new OneUnitPolicy(50, 1, 32, 3, 10), staticPolicy(peakUnits));
    }

    /** Never changes the unit count: a pool provisioned for the peak from the start. */
    static Policy staticPolicy(int units) {
        return new Policy() {
            @Override
            public String id() {
                return "static/" + units;
            }

            @Override
            public Map<String, Object> params() {
                return Map.of("units", units);
            }

            @Override
            public Decision decide(State state, Observation o) {
                return new Decision(0, State.Tier.STEADY, "static", state);
            }
        };
    }

    static void print(PrintStream out, long seed, java.nio.file.Path logs) throws java.io.IOException {
        List<Scenario> scenarios = List.of(Scenario.step12x(), Scenario.step12xRactorBridge(),
                Scenario.step12xThreads5());
        out.printf(Locale.ROOT, "%-32s %-12s %9s %9s %12s %10s %6s %6s %6s%n", "scenario", "policy",
                "q p50 ms", "q p99 ms", "step p99 ms", "recover s", "adds", "max u", "mean u");
        for (Scenario sc : scenarios) {
            int peak = (int) Math.ceil(360 * 0.025 / 0.7 / sc.slotsPerUnit());
            // The bridge row is the default policy's: the others never use a bridge.
            List<Policy> compared = sc.hasBridge() ? policies(peak).subList(0, 1) : policies(peak);
            for (Policy policy : compared) {
                Scenario run = policy.id().startsWith("static/")
                        ? new Scenario(sc.name(), sc.phases(), sc.service(), sc.slotsPerUnit(), peak, sc.deadTimeS(),
                        sc.memPerUnitMb(), sc.shedLimitMs())
                        : sc;
                List<String> lines = logs == null ? null : new java.util.ArrayList<>();
                SimResult r = new Simulator(run, policy, seed, lines).run();
                if (logs != null) {
                    String file = (sc.name() + "-" + policy.id()).replaceAll("[^A-Za-z0-9]+", "-") + ".jsonl";
                    java.nio.file.Files.createDirectories(logs);
                    java.nio.file.Files.write(logs.resolve(file), lines);
                }
                double end = sc.seconds();
                out.printf(Locale.ROOT, "%-32s %-12s %9.1f %9.1f %12.1f %10s %6d %6d %6.2f%n", sc.name(), policy.id(),
                        r.queueQuantileMs(0.50, 0, end), r.queueQuantileMs(0.99, 0, end),
                        r.queueQuantileMs(0.99, 20, 60), fmt(r.recoverySeconds(20, 60, 50)), r.adds(),
                        r.maxUnits(), r.meanUnits());
            }
        }
        out.println();
        printLimits(out, seed, logs);
        out.println();
        printSurges(out, seed);
    }

    /** A concurrency limit scenario, the moment its load or dependency changes, and the seconds measured. */
    private record LimitRow(LimitSimulator.LimitScenario scenario, double changeS, int fromS, int toS) {
    }

    /**
     * The concurrency limit table: for each scenario with the default limiter and without one (every slot
     * runs), the seconds from the change until the limit stays in 15–30 (the band around the knee of 20),
     * the limits, goodput, shed requests, the most calls in the dependency at once, and slot and queue time
     * p99, over the measured seconds (from 10 s after the change).
     */
    static void printLimits(PrintStream out, long seed, java.nio.file.Path logs) throws java.io.IOException {
        List<LimitRow> rows = List.of(new LimitRow(LimitSimulator.LimitScenario.twiceTheCapacity(), 5, 15, 35),
                new LimitRow(LimitSimulator.LimitScenario.bootIntoTwiceTheCapacity(), 0, 10, 30),
                new LimitRow(LimitSimulator.LimitScenario.lostCapacity(), 10, 20, 30),
                new LimitRow(LimitSimulator.LimitScenario.twiceTheCapacityContended(), 5, 15, 35),
                new LimitRow(LimitSimulator.LimitScenario.fastWarmUpThenTwiceTheCapacity(), 10, 20, 35));
        out.printf(Locale.ROOT, "%-34s %-10s %8s %7s %11s %6s %9s %11s %9s%n", "concurrency limit scenario", "limiter",
                "settle s", "limit", "goodput rps", "shed", "max calls", "slot p99 ms", "q p99 ms");
        for (LimitRow row : rows) {
            for (LimitPolicy limiter : java.util.Arrays.asList(GradientLimitPolicy.defaults(), null)) {
                List<String> lines = logs == null || limiter == null ? null : new java.util.ArrayList<>();
                LimitSimulator.LimitResult r = new LimitSimulator(row.scenario(), limiter, seed, lines).run();
                if (lines != null) {
                    String file = (row.scenario().name() + "-" + limiter.id()).replaceAll("[^A-Za-z0-9]+", "-")
                            + ".jsonl";
                    java.nio.file.Files.createDirectories(logs);
                    java.nio.file.Files.write(logs.resolve(file), lines);
                }
                int[] range = r.limitRange(row.fromS(), row.toS());
                out.printf(Locale.ROOT, "%-34s %-10s %8s %7s %11.0f %6d %9d %11.1f %9.1f%n", row.scenario().name(),
                        limiter == null ? "none" : limiter.id(),
                        limiter == null ? "-" : settle(r.settleSeconds(row.changeS(), 15, 30)),
                        limiter == null ? "-" : range[0] + "-" + range[1], r.goodputRps(row.fromS(), row.toS()),
                        r.shed(0, row.toS()), r.maxInFlight(row.fromS(), row.toS()),
                        r.slotQuantileMs(0.99, row.fromS(), row.toS()), r.queueQuantileMs(0.99, row.fromS(), row.toS()));
            }
        }
    }

    /** A surge scenario: when its quiet stretch begins, when the surge comes, and how many it needs at once. */
    private record SurgeRow(LimitSimulator.LimitScenario scenario, double quietFromS, int surgeS, int needed) {
    }

    /**
     * The surges after a quiet stretch: for each with the default limiter and without one, the lowest limit
     * the quiet stretch left, the windows from the surge until the limit lets run as many as it needs, and
     * queue time p99 over the surge's first two seconds.
     */
    static void printSurges(PrintStream out, long seed) {
        List<SurgeRow> rows = List.of(new SurgeRow(LimitSimulator.LimitScenario.fastWarmUpThenSlowMix(), 4, 16, 30),
                new SurgeRow(LimitSimulator.LimitScenario.surgeAfterTheKneeGrewWhileQuiet(), 12, 16, 60));
        out.printf(Locale.ROOT, "%-34s %-10s %11s %12s %9s%n", "surge after a quiet stretch", "limiter",
                "quiet limit", "windows to N", "q p99 ms");
        for (SurgeRow row : rows) {
            for (LimitPolicy limiter : java.util.Arrays.asList(GradientLimitPolicy.defaults(), null)) {
                LimitSimulator.LimitResult r = new LimitSimulator(row.scenario(), limiter, seed, null).run();
                int[] quiet = r.limitRange(row.quietFromS(), row.surgeS());
                out.printf(Locale.ROOT, "%-34s %-10s %11s %12s %9.1f%n", row.scenario().name(),
                        limiter == null ? "none" : limiter.id(), limiter == null ? "-" : quiet[0] + "-" + quiet[1],
                        limiter == null ? "-" : row.needed() + ": " + r.windowsToReach(row.surgeS(), row.needed()),
                        r.queueQuantileMs(0.99, row.surgeS(), row.surgeS() + 2));
            }
        }
    }

    private static String settle(double s) {
        return Double.isInfinite(s) ? "never" : String.format(Locale.ROOT, "%.2f", s);
    }

    private static String fmt(double s) {
        return Double.isInfinite(s) ? "never" : String.format(Locale.ROOT, "%.0f", s);
    }
}
