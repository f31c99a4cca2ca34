/*
 * `puma-plus replay LOG`: re-runs decide() over every line of a decision log (the autoscaler's ticks and
 * alarms, and the concurrency limiter's windows) and reports each decision that differs from the logged one. How a production incident becomes a test, and how a policy change is
 * checked against yesterday's traffic.
 */
package dev.pumaplus.controller;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code java -cp <host lib>/*:controller.jar dev.pumaplus.controller.Replay [--policy ID] LOG...}
 *
 * <p>Each line is replayed from its own logged state with the policy it names (or {@code --policy ID}
 * with default parameters, to ask what another policy would have done); a difference in delta, tier,
 * reason or next state is reported. A concurrency limit line ({@code "kind":"limit"}) is replayed with the
 * limit policy it names (never the override, which names an autoscaling policy); a difference in its limit,
 * reason or next state is reported. Exit status: 0 every decision reproduced, 1 some differ, 2 unreadable
 * input.
 */
public final class Replay {

    /**
     * One decision that differs: the tick's (or, for a limit line, the window's) number, and the logged and
     * replayed decisions and next states as the report shows them.
     */
    public record Difference(int line, long tick, String logged, String replayed, String loggedNext,
                             String replayedNext) {
        @Override
        public String toString() {
            return "line " + line + " tick " + tick + ": logged " + logged + "\n    replayed " + replayed
                    + (loggedNext.equals(replayedNext) ? "" : "\n    next state " + loggedNext + " vs "
                    + replayedNext);
        }
    }

    /** A limit decision as the difference report shows it. */
    static String summary(LimitDecision d) {
        return "limit " + d.limit() + " " + d.reason();
    }

    /** A decision as the difference report shows it: action, units, bridge slots when any, tier, reason. */
    static String summary(Decision d) {
        return d.action() + " " + Math.abs(d.delta()) + (d.bridgeDelta() == 0 ? "" : " bridge "
                + (d.bridgeDelta() > 0 ? "+" : "") + d.bridgeDelta()) + " [" + d.tier() + "] " + d.reason();
    }

    /** The outcome of one log. */
    public record Result(int lines, List<Difference> differences) {
    }

    private Replay() {
    }

    /**
     * Replays every line of {@code log}. Blank lines are skipped.
     *
     * @param override a policy id to use instead of the logged one, or null
     * @throws IllegalArgumentException naming the line that is not a decision log line
     */
    public static Result replay(Reader log, String override) throws IOException {
        Map<String, Policy> policies = new HashMap<>();
        Map<String, LimitPolicy> limitPolicies = new HashMap<>();
        List<Difference> differences = new ArrayList<>();
        BufferedReader in = new BufferedReader(log);
        int lineNo = 0;
        int lines = 0;
        for (String line; (line = in.readLine()) != null; ) {
            lineNo++;
            if (line.isBlank()) {
                continue;
            }
            try {
                Difference d = DecisionLog.isLimitLine(line) ? replayLimit(lineNo, DecisionLog.parseLimit(line),
                        limitPolicies) : replayTick(lineNo, DecisionLog.parse(line), override, policies);
                if (d != null) {
                    differences.add(d);
                }
            } catch (IllegalArgumentException bad) {
                throw new IllegalArgumentException("line " + lineNo + ": " + bad.getMessage());
            }
            lines++;
        }
        return new Result(lines, differences);
    }

    /** A tick's or an alarm's line replayed; null when it reproduces. */
    private static Difference replayTick(int lineNo, DecisionLog.Entry e, String override,
                                         Map<String, Policy> policies) {
        String id = override != null ? override : e.policyId();
        Map<String, Object> params = override != null ? Map.of() : e.params();
        Policy policy = policies.computeIfAbsent(id + params, k -> Policies.create(id, params));
        Decision replayed = policy.decide(e.state(), e.observation());
        return replayed.equals(e.decision()) ? null : new Difference(lineNo, e.observation().tick(),
                summary(e.decision()), summary(replayed), e.decision().next().toString(), replayed.next().toString());
    }

    /** A concurrency limit line replayed; null when it reproduces. */
    private static Difference replayLimit(int lineNo, DecisionLog.LimitEntry e, Map<String, LimitPolicy> policies) {
        LimitPolicy policy = policies.computeIfAbsent(e.policyId() + e.params(),
                k -> Policies.createLimit(e.policyId(), e.params()));
        LimitDecision replayed = policy.decide(e.state(), e.observation());
        return replayed.equals(e.decision()) ? null : new Difference(lineNo, e.observation().window(),
                summary(e.decision()), summary(replayed), e.decision().next().toString(), replayed.next().toString());
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** The command; returns the exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        String override = null;
        List<Path> logs = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--policy") && i + 1 < args.length) {
                override = args[++i];
            } else if (args[i].startsWith("-")) {
                err.println("usage: puma-plus replay [--policy ID] LOG...");
                return 2;
            } else {
                logs.add(Path.of(args[i]));
            }
        }
        if (logs.isEmpty()) {
            err.println("usage: puma-plus replay [--policy ID] LOG...");
            return 2;
        }
        int status = 0;
        for (Path log : logs) {
            try (Reader r = Files.newBufferedReader(log, StandardCharsets.UTF_8)) {
                Result result = replay(r, override);
                for (Difference d : result.differences()) {
                    out.println(log + ": " + d);
                }
                out.println(log + ": " + result.lines() + " decisions, " + result.differences().size() + " differ");
                if (!result.differences().isEmpty()) {
                    status = Math.max(status, 1);
                }
            } catch (IOException | IllegalArgumentException e) {
                err.println("puma-plus replay: " + log + ": " + e.getMessage());
                status = 2;
            }
        }
        return status;
    }
}
