/*
 * The JSONL decision log: one self-contained line per tick (policy id and parameters, observation, state,
 * decision, reason, next state), written by the driver and read by replay, and one per concurrency limit
 * window that changed something (written by the limit driver). The record of why the backend had the size,
 * and the fiber slots the limit, they had.
 */
package dev.pumaplus.controller;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Line format (docs/CONTROL.md, "Decision log"):
 * <pre>
 * {"at":"2026-…Z","tick":7,"policy":"tiered/1","params":{…},"obs":{…},"state":{…},
 *  "decision":{"action":"add","delta":3,"tier":"hot","reason":"…"},"next":{…}}
 *  (with a bridge: "obs":{…,"bridgeUnits":0,…}, "decision":{…,"bridgeDelta":4,…})
 * </pre>
 * Observation and state fields carry their record component names; the observation's {@code bridge*} fields
 * and the decision's {@code bridgeDelta} are written only when a bridge actuator runs, and a line without
 * them reads as "no bridge" (so logs from before bridging replay unchanged); a line without {@code tickMs}
 * was written at {@link Observation#DEFAULT_TICK_MS}, and one without {@code gvlWaitRatio} (or
 * {@code bridgeSharesGvl}) before GVL wait was measured: unknown (false); one without {@code alarm} and
 * {@code oldestWaitMs} is a tick's from before alarms (false; unknown); {@code concurrencyLimit} is written
 * only while fiber slots run under one, and a line without it reads as none (0). An alarm's line
 * ({@code "alarm":true}) is written only when the alarm acted. An unknown number (NaN) is written as
 * {@code null}, an infinite one as the string {@code "Infinity"}; {@code at} is informational (replay
 * ignores it).
 *
 * <p>A concurrency limit line ({@link #limitLine}) has {@code "kind":"limit"} and the window's number in place
 * of the tick:
 * <pre>
 * {"at":"…","kind":"limit","window":42,"policy":"gradient/2","params":{…},"obs":{…},"state":{…},
 *  "decision":{"limit":24,"reason":"…"},"next":{…}}
 * </pre>
 * with the fields of {@link LimitObservation} and {@link LimitState} by name. A line without {@code kind} is a
 * tick's. Not thread-safe: one writer per log.
 */
public final class DecisionLog {

    private static final ObjectMapper JSON = new ObjectMapper();

    private DecisionLog() {
    }

    /** One log entry as read back. */
    public record Entry(String at, String policyId, Map<String, Object> params, Observation observation,
                        State state, Decision decision) {
    }

    /** One concurrency limit line as read back. */
    public record LimitEntry(String at, String policyId, Map<String, Object> params, LimitObservation observation,
                             LimitState state, LimitDecision decision) {
    }

    /** The {@code kind} of a concurrency limit line. */
    static final String LIMIT_KIND = "limit";

    /** The JSON line (without newline) for one tick. {@code at} may be null. */
    public static String line(String at, Policy policy, State state, Observation o, Decision d) {
        ObjectNode root = startLine(at);
        root.put("tick", o.tick());
        root.put("policy", policy.id());
        root.set("params", JSON.valueToTree(policy.params()));
        ObjectNode obs = root.putObject("obs");
        for (var c : Observation.class.getRecordComponents()) {
            if ((o.hasBridge() || !isBridgeField(c.getName()))
                    && (o.concurrencyLimit() > 0 || !c.getName().equals("concurrencyLimit"))) {
                putValue(obs, c.getName(), read(c, o));
            }
        }
        putState(root.putObject("state"), state);
        ObjectNode decision = root.putObject("decision");
        decision.put("action", d.action());
        decision.put("delta", d.delta());
        if (o.hasBridge()) {
            decision.put("bridgeDelta", d.bridgeDelta());
        }
        decision.put("tier", d.tier());
        decision.put("reason", d.reason());
        putState(root.putObject("next"), d.next());
        return text(root);
    }

    /** Writes {@link #line} and a newline, then flushes (a crash loses at most the current tick). */
    public static void append(Writer out, String at, Policy policy, State state, Observation o, Decision d)
            throws IOException {
        writeLine(out, line(at, policy, state, o, d));
    }

    /** The JSON line (without newline) for one concurrency limit window. {@code at} may be null. */
    public static String limitLine(String at, LimitPolicy policy, LimitState state, LimitObservation o,
                                   LimitDecision d) {
        ObjectNode root = startLine(at);
        root.put("kind", LIMIT_KIND);
        root.put("window", o.window());
        root.put("policy", policy.id());
        root.set("params", JSON.valueToTree(policy.params()));
        putRecord(root.putObject("obs"), o);
        putRecord(root.putObject("state"), state);
        ObjectNode decision = root.putObject("decision");
        decision.put("limit", d.limit());
        decision.put("reason", d.reason());
        putRecord(root.putObject("next"), d.next());
        return text(root);
    }

    /** Writes {@link #limitLine} and a newline, then flushes. */
    public static void appendLimit(Writer out, String at, LimitPolicy policy, LimitState state, LimitObservation o,
                                   LimitDecision d) throws IOException {
        writeLine(out, limitLine(at, policy, state, o, d));
    }

    /** A line's object, with {@code at} first when there is one. */
    private static ObjectNode startLine(String at) {
        ObjectNode root = JSON.createObjectNode();
        if (at != null) {
            root.put("at", at);
        }
        return root;
    }

    private static String text(ObjectNode root) {
        try {
            return JSON.writeValueAsString(root);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void writeLine(Writer out, String line) throws IOException {
        out.write(line);
        out.write('\n');
        out.flush();
    }

    /** Whether {@code line} is a concurrency limit line (else it is a tick's or an alarm's). */
    public static boolean isLimitLine(String line) {
        return LIMIT_KIND.equals(tree(line).path("kind").asText(null));
    }

    /** Parses one concurrency limit line. @throws IllegalArgumentException when it is not one */
    public static LimitEntry parseLimit(String line) {
        JsonNode root = tree(line);
        requireKeys(root);
        if (!isLimitLine(line)) {
            throw new IllegalArgumentException("not a limit line (no \"kind\":\"limit\")");
        }
        JsonNode d = root.get("decision");
        if (!d.has("limit") || !d.has("reason")) {
            throw new IllegalArgumentException("decision lacks \"limit\" or \"reason\"");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> params = root.has("params") ? JSON.convertValue(root.get("params"), LinkedHashMap.class)
                : Map.of();
        return new LimitEntry(root.has("at") ? root.get("at").asText() : null, root.get("policy").asText(), params,
                readRecord(LimitObservation.class, root.get("obs")), readRecord(LimitState.class, root.get("state")),
                new LimitDecision(d.get("limit").asInt(), d.get("reason").asText(),
                        readRecord(LimitState.class, root.get("next"))));
    }

    /** Parses one line. @throws IllegalArgumentException when it is not a decision log line */
    public static Entry parse(String line) {
        JsonNode root = tree(line);
        requireKeys(root);
        JsonNode obs = root.get("obs");
        var components = Observation.class.getRecordComponents();
        Object[] args = new Object[components.length];
        Class<?>[] types = new Class<?>[components.length];
        for (int i = 0; i < components.length; i++) {
            types[i] = components[i].getType();
            JsonNode v = obs.get(components[i].getName());
            if (v == null && isBridgeField(components[i].getName())) {
                v = JSON.nullNode(); // a line without a bridge: 0 slots per unit, i.e. no bridge
            } else if (v == null && (components[i].getName().equals("gvlWaitRatio")
                    || components[i].getName().equals("oldestWaitMs")
                    || components[i].getName().equals("meanThreadWaitMs"))) {
                v = JSON.nullNode(); // a line from before it was measured: unknown
            } else if (v == null && components[i].getName().equals("alarm")) {
                v = JSON.getNodeFactory().booleanNode(false); // a line from before alarms: a tick's
            } else if (v == null && components[i].getName().equals("concurrencyLimit")) {
                v = JSON.getNodeFactory().numberNode(0); // no concurrency limit (threads, or before there was one)
            } else if (v == null && components[i].getName().equals("tickMs")) {
                v = JSON.getNodeFactory().numberNode(Observation.DEFAULT_TICK_MS);
            } else if (v == null) {
                throw new IllegalArgumentException("obs lacks \"" + components[i].getName() + "\"");
            }
            args[i] = types[i] == long.class ? (Object) v.asLong()
                    : types[i] == int.class ? (Object) v.asInt()
                    : types[i] == boolean.class ? (Object) v.asBoolean()
                    : (Object) number(v);
        }
        Observation o;
        try {
            o = Observation.class.getDeclaredConstructor(types).newInstance(args);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
        JsonNode d = root.get("decision");
        Decision decision = new Decision(d.get("delta").asInt(), d.path("bridgeDelta").asInt(0),
                d.get("tier").asText(), d.get("reason").asText(), state(root.get("next")));
        @SuppressWarnings("unchecked")
        Map<String, Object> params = root.has("params") ? JSON.convertValue(root.get("params"), LinkedHashMap.class)
                : Map.of();
        return new Entry(root.has("at") ? root.get("at").asText() : null, root.get("policy").asText(), params, o,
                state(root.get("state")), decision);
    }

    private static JsonNode tree(String line) {
        try {
            return JSON.readTree(line);
        } catch (IOException e) {
            throw new IllegalArgumentException("not JSON: " + e.getMessage());
        }
    }

    private static void requireKeys(JsonNode root) {
        for (String key : new String[] {"policy", "obs", "state", "decision", "next"}) {
            if (root == null || !root.has(key)) {
                throw new IllegalArgumentException("missing \"" + key + "\"");
            }
        }
    }

    /** Writes every component of {@code record} by name ({@link #putValue}). */
    private static void putRecord(ObjectNode node, Record record) {
        for (var c : record.getClass().getRecordComponents()) {
            putValue(node, c.getName(), read(c, record));
        }
    }

    /**
     * The record of {@code type} whose components are {@code node}'s fields by name, every one required but
     * {@code meanThreadWaitMs}, unknown (NaN) in a line from before it was measured.
     */
    private static <R extends Record> R readRecord(Class<R> type, JsonNode node) {
        var components = type.getRecordComponents();
        Object[] args = new Object[components.length];
        Class<?>[] types = new Class<?>[components.length];
        for (int i = 0; i < components.length; i++) {
            types[i] = components[i].getType();
            JsonNode v = node.get(components[i].getName());
            if (v == null && components[i].getName().equals("meanThreadWaitMs")) {
                v = JSON.nullNode();
            } else if (v == null) {
                throw new IllegalArgumentException(type.getSimpleName() + " lacks \"" + components[i].getName() + "\"");
            }
            args[i] = types[i] == long.class ? (Object) v.asLong()
                    : types[i] == int.class ? (Object) v.asInt()
                    : types[i] == boolean.class ? (Object) v.asBoolean()
                    : (Object) number(v);
        }
        try {
            return type.getDeclaredConstructor(types).newInstance(args);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The observation's bridge fields, written only when there is a bridge; absent means none. */
    private static boolean isBridgeField(String name) {
        return name.startsWith("bridge");
    }

    private static double number(JsonNode v) {
        if (v.isNull()) {
            return Double.NaN;
        }
        if (v.isTextual()) {
            return Double.parseDouble(v.asText());
        }
        return v.asDouble();
    }

    private static State state(JsonNode n) {
        return new State(n.get("tier").asText(), n.get("breachTicks").asInt(), n.get("idleTicks").asInt(),
                n.get("lastUpTick").asLong(), n.get("lastDownTick").asLong());
    }

    private static void putState(ObjectNode node, State s) {
        node.put("tier", s.tier());
        node.put("breachTicks", s.breachTicks());
        node.put("idleTicks", s.idleTicks());
        node.put("lastUpTick", s.lastUpTick());
        node.put("lastDownTick", s.lastDownTick());
    }

    private static Object read(java.lang.reflect.RecordComponent c, Object record) {
        try {
            return c.getAccessor().invoke(record);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void putValue(ObjectNode node, String name, Object v) {
        if (v instanceof Double d) {
            if (d.isNaN()) {
                node.putNull(name);
            } else if (d.isInfinite()) {
                node.put(name, d > 0 ? "Infinity" : "-Infinity");
            } else {
                node.put(name, d);
            }
        } else if (v instanceof Long l) {
            node.put(name, l);
        } else if (v instanceof Integer i) {
            node.put(name, i);
        } else if (v instanceof Boolean b) {
            node.put(name, b);
        } else {
            node.put(name, String.valueOf(v));
        }
    }
}
