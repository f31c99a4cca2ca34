/*
 * Claims about the JSONL decision log and replay: a line holds everything replay needs, golden logs
 * replay to the same decisions, a changed policy is reported line by line, and the concurrency limiter's
 * lines live in the same log beside the ticks'.
 */
package dev.pumaplus.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 20, unit = TimeUnit.SECONDS)
class DecisionLogTest {

    /**
     * Golden logs: produced by the simulator's 12× step (tiered and one-unit; tiered with a Ractor bridge,
     * whose lines carry the bridge fields) and checked in; the first four before alarms, the fifth since
     * (tiered, with two alarms' lines).
     */
    static final List<String> GOLDEN = List.of("12x-step-fork-1-s-tiered-1.jsonl",
            "12x-step-fork-1-s-one-unit-1.jsonl", "12x-step-fork-1-s-5-threads-tiered-1.jsonl",
            "12x-step-fork-1-s-ractor-5-ms-tiered-1.jsonl", "12x-step-fork-1-s-tiered-1-alarms.jsonl");

    @Test
    void aLineRoundTripsUnknownAndInfiniteNumbers() {
        Observation o = Observation.builder().tick(3).tickMs(Observation.DEFAULT_TICK_MS).arrivalsPerSec(12.5)
                .queueP95Ms(0).queueP99Ms(0).slotMs(Double.NaN).depth(4).busySlots(0).liveSlots(0)
                .predictedWaitMs(Double.POSITIVE_INFINITY).units(1).readyUnits(0).slotsPerUnit(5).deadTimeMs(1000)
                .memPerUnitMb(Double.NaN).memAvailableMb(2048).cpuBusy(Double.NaN).gainKnown(false).build();
        Policy p = TieredPolicy.defaults();
        Decision d = p.decide(State.initial(), o);
        String line = DecisionLog.line("2026-11-30T00:00:00Z", p, State.initial(), o, d);
        assertFalse(line.contains("\n"));
        assertTrue(line.contains("\"slotMs\":null"), line);
        assertTrue(line.contains("\"predictedWaitMs\":\"Infinity\""), line);
        DecisionLog.Entry e = DecisionLog.parse(line);
        assertEquals(o, e.observation());
        assertEquals(d, e.decision());
        assertEquals(TieredPolicy.ID, e.policyId());
        assertEquals(State.initial(), e.state());
    }

    @Test
    void bridgeFieldsAreWrittenOnlyWithABridgeAndALineWithoutThemReadsAsNoBridge() {
        Observation.Builder step = Observation.builder().tick(21).tickMs(Observation.DEFAULT_TICK_MS)
                .arrivalsPerSec(360).queueP95Ms(400).queueP99Ms(450).slotMs(25).depth(300).busySlots(1)
                .liveSlots(1).predictedWaitMs(7500).units(1).readyUnits(1).slotsPerUnit(1).deadTimeMs(1000)
                .memPerUnitMb(Double.NaN).memAvailableMb(Double.NaN).cpuBusy(Double.NaN).gainKnown(true);
        Observation plain = step.build();
        Observation bridged = step.bridgeUnits(0).bridgeReadyUnits(0).bridgeSlotsPerUnit(1).bridgeDeadTimeMs(5)
                .bridgeGainKnown(true).build();
        Policy p = TieredPolicy.defaults();
        Decision d = p.decide(State.initial(), bridged);
        assertTrue(d.bridgeDelta() > 0, d.reason());
        String line = DecisionLog.line(null, p, State.initial(), bridged, d);
        assertTrue(line.contains("\"bridgeDeadTimeMs\":5.0") && line.contains("\"bridgeDelta\":" + d.bridgeDelta()),
                line);
        assertEquals(bridged, DecisionLog.parse(line).observation());
        assertEquals(d, DecisionLog.parse(line).decision());
        String old = DecisionLog.line(null, p, State.initial(), plain, p.decide(State.initial(), plain));
        assertFalse(old.contains("\"bridgeUnits\"") || old.contains("bridgeDelta"), old);
        assertFalse(DecisionLog.parse(old).observation().hasBridge());
    }

    @Test
    void aLineWithoutTheTickLengthWasWrittenAtTheDefaultTick() throws Exception {
        String golden = new String(getClass().getResourceAsStream("/golden/" + GOLDEN.get(0)).readAllBytes(),
                StandardCharsets.UTF_8);
        String first = golden.lines().findFirst().orElseThrow();
        assertFalse(first.contains("\"tickMs\""), "the golden logs predate tickMs");
        assertEquals(Observation.DEFAULT_TICK_MS, DecisionLog.parse(first).observation().tickMs());
    }

    @Test
    void aLineFromBeforeAlarmsIsATicksAndAnAlarmsLineSaysSoWithTheOldestWait() throws Exception {
        String before = new String(getClass().getResourceAsStream("/golden/" + GOLDEN.get(0)).readAllBytes(),
                StandardCharsets.UTF_8);
        String first = before.lines().findFirst().orElseThrow();
        assertFalse(first.contains("\"alarm\""), "the first golden logs predate alarms");
        Observation tick = DecisionLog.parse(first).observation();
        assertFalse(tick.alarm());
        assertTrue(Double.isNaN(tick.oldestWaitMs()));
        String since = new String(getClass().getResourceAsStream("/golden/" + GOLDEN.get(4)).readAllBytes(),
                StandardCharsets.UTF_8);
        List<DecisionLog.Entry> alarms = since.lines().map(DecisionLog::parse).filter(e -> e.observation().alarm())
                .toList();
        assertEquals(2, alarms.size());
        for (DecisionLog.Entry e : alarms) {
            assertTrue(e.observation().oldestWaitMs() >= 50, e.decision().reason());
            assertTrue(e.decision().reason().startsWith("alarm: "), e.decision().reason());
        }
    }

    @Test
    void goldenLogsReplayToEveryLoggedDecision() throws Exception {
        for (String name : GOLDEN) {
            try (Reader r = new InputStreamReader(getClass().getResourceAsStream("/golden/" + name),
                    StandardCharsets.UTF_8)) {
                Replay.Result result = Replay.replay(r, null);
                assertTrue(result.lines() >= 100, name + ": " + result.lines());
                assertEquals(List.of(), result.differences(), name);
            }
        }
    }

    @Test
    void replayReportsEveryDecisionAnotherPolicyWouldTakeDifferently() throws Exception {
        try (Reader r = new InputStreamReader(getClass().getResourceAsStream("/golden/" + GOLDEN.get(0)),
                StandardCharsets.UTF_8)) {
            Replay.Result result = Replay.replay(r, OneUnitPolicy.ID);
            assertFalse(result.differences().isEmpty());
            assertTrue(result.differences().get(0).toString().contains("replayed"));
        }
    }

    @Test
    void aTamperedDecisionIsReportedWithItsLine(@TempDir Path dir) throws Exception {
        List<String> lines = new java.util.ArrayList<>(Files.readAllLines(Path.of(getClass()
                .getResource("/golden/" + GOLDEN.get(0)).toURI())));
        int index = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains("\"action\":\"add\"")) {
                index = i;
                break;
            }
        }
        assertTrue(index >= 0);
        lines.set(index, lines.get(index).replaceFirst("\"delta\":(\\d+)", "\"delta\":1$1"));
        Path log = dir.resolve("tampered.jsonl");
        Files.write(log, lines);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = Replay.run(new String[] {log.toString()}, new PrintStream(out), new PrintStream(out));
        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(1, status, text);
        assertTrue(text.contains("line " + (index + 1) + " "), text);
        assertTrue(text.contains("1 differ"), text);
    }

    @Test
    void aTamperedBridgeDeltaIsReportedWithBothCounts() throws Exception {
        String golden = new String(getClass().getResourceAsStream("/golden/" + GOLDEN.get(3)).readAllBytes(),
                StandardCharsets.UTF_8);
        String tampered = golden.replaceFirst("\"bridgeDelta\":16", "\"bridgeDelta\":15");
        Replay.Result result = Replay.replay(new StringReader(tampered), null);
        assertEquals(1, result.differences().size());
        String report = result.differences().get(0).toString();
        assertTrue(report.contains("bridge +15") && report.contains("bridge +16"), report);
    }

    @Test
    void aLimitLineRoundTripsItsUnknownBaselineAndReplaysBesideTheTicksEvenUnderAnotherTickPolicy()
            throws Exception {
        LimitPolicy limiter = GradientLimitPolicy.defaults();
        LimitObservation thin = new LimitObservation(0, 250.4, 3, 11.5, 3, 0, 50, Integer.MAX_VALUE, Double.NaN);
        LimitDecision d = limiter.decide(LimitState.initial(), thin);
        String line = DecisionLog.limitLine("2026-12-07T05:00:00Z", limiter, LimitState.initial(), thin, d);
        assertTrue(line.contains("\"kind\":\"limit\"") && line.contains("\"baselineMs\":null"), line);
        assertTrue(DecisionLog.isLimitLine(line));
        DecisionLog.LimitEntry e = DecisionLog.parseLimit(line);
        assertEquals(thin, e.observation());
        assertEquals(LimitState.initial(), e.state());
        assertEquals(d, e.decision());
        assertEquals(GradientLimitPolicy.ID, e.policyId());
        assertThrows(IllegalArgumentException.class, () -> DecisionLog.parse(line), "not a tick's line");

        String ticks = new String(getClass().getResourceAsStream("/golden/" + GOLDEN.get(0)).readAllBytes(),
                StandardCharsets.UTF_8);
        Replay.Result mixed = Replay.replay(new StringReader(line + "\n" + ticks), null);
        assertEquals(List.of(), mixed.differences());
        Replay.Result other = Replay.replay(new StringReader(line), OneUnitPolicy.ID);
        assertEquals(1, other.lines());
        assertEquals(List.of(), other.differences(), "--policy names a tick policy; the limit line keeps its own");
    }

    @Test
    void aLimitLineFromBeforeTheThreadWaitWasMeasuredReadsItAsUnknownAndReplays() throws Exception {
        LimitPolicy limiter = GradientLimitPolicy.defaults();
        LimitState state = new LimitState(200, 10.4, 0);
        LimitObservation o = new LimitObservation(7, 250, 3000, 12.4, 200, 40, 256, 200, 3.0);
        LimitDecision d = limiter.decide(state, o);
        String line = DecisionLog.limitLine("2026-12-07T05:00:00Z", limiter, state, o, d)
                .replace(",\"meanThreadWaitMs\":3.0", "");
        assertFalse(line.contains("meanThreadWaitMs"), line);
        LimitObservation read = DecisionLog.parseLimit(line).observation();
        assertTrue(Double.isNaN(read.meanThreadWaitMs()), "unknown, not 0");
        Replay.Result replayed = Replay.replay(new StringReader(line), null);
        assertEquals(1, replayed.differences().size(),
                "without the wait the same window shrinks the limit the logged decision held");
    }

    @Test
    void theConcurrencyLimitIsWrittenOnlyWhileOneIsInForceAndALineWithoutItReadsAsNone() {
        Observation.Builder b = Observation.builder().tick(3).tickMs(Observation.DEFAULT_TICK_MS).arrivalsPerSec(2000)
                .queueP95Ms(900).queueP99Ms(950).slotMs(24).depth(2000).busySlots(24).liveSlots(50)
                .predictedWaitMs(2000).units(1).readyUnits(1).slotsPerUnit(50).deadTimeMs(1000)
                .memPerUnitMb(Double.NaN).memAvailableMb(Double.NaN).cpuBusy(Double.NaN).gainKnown(true);
        Policy p = TieredPolicy.defaults();
        Observation limited = b.concurrencyLimit(24).build();
        String line = DecisionLog.line(null, p, State.initial(), limited, p.decide(State.initial(), limited));
        assertTrue(line.contains("\"concurrencyLimit\":24"), line);
        assertEquals(limited, DecisionLog.parse(line).observation());
        Observation none = b.concurrencyLimit(0).build();
        String plain = DecisionLog.line(null, p, State.initial(), none, p.decide(State.initial(), none));
        assertFalse(plain.contains("concurrencyLimit"), plain);
        assertEquals(0, DecisionLog.parse(plain).observation().concurrencyLimit());
    }

    @Test
    void aLineThatIsNotADecisionIsRefusedWithItsNumber() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Replay.replay(new StringReader("\n{\"tick\":1}\n"), null));
        assertTrue(e.getMessage().startsWith("line 2: missing"), e.getMessage());
    }
}
