/*
 * A policy's parameters, a record of int and double components, as the decision log writes them into every
 * line (name → value, in declaration order) and as replay reads them back, and the check each policy's
 * record applies to them.
 */
package dev.pumaplus.controller;

import java.util.LinkedHashMap;
import java.util.Map;

/** Static helpers; no state of its own. */
final class RecordParams {

    private RecordParams() {
    }

    /** A policy's parameter checks, each failure an IllegalArgumentException naming {@code what} they are. */
    record Check(String what) {

        /** @throws IllegalArgumentException "{@code what}: {@code rule}" unless {@code ok} */
        void require(boolean ok, String rule) {
            if (!ok) {
                throw new IllegalArgumentException(what + ": " + rule);
            }
        }
    }

    /** {@code params}' components by name, in declaration order. */
    static Map<String, Object> toMap(Record params) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (var c : params.getClass().getRecordComponents()) {
            try {
                m.put(c.getName(), c.getAccessor().invoke(params));
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
        return m;
    }

    /**
     * The {@code type} record built from {@code m}, a name missing from it taking its value in
     * {@code defaults}; a value that cannot be built is an IllegalArgumentException naming {@code what}.
     */
    static <R extends Record> R fromMap(Class<R> type, Map<String, ?> m, R defaults, String what) {
        var components = type.getRecordComponents();
        Object[] args = new Object[components.length];
        Class<?>[] types = new Class<?>[components.length];
        Map<String, Object> fallback = toMap(defaults);
        for (int i = 0; i < components.length; i++) {
            var c = components[i];
            types[i] = c.getType();
            Number n = (Number) (m.containsKey(c.getName()) ? m.get(c.getName()) : fallback.get(c.getName()));
            args[i] = c.getType() == int.class ? (Object) n.intValue() : (Object) n.doubleValue();
        }
        try {
            return type.getDeclaredConstructor(types).newInstance(args);
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException(what + ": " + e, e);
        }
    }
}
