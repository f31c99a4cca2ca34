/*
 * The policies this bundle knows, by id: how replay rebuilds the policy a log line names, and how the
 * driver picks the one named in the bundle's policy.properties.
 */
package dev.pumaplus.controller;

import java.util.Map;

/** Policy ids to constructors, autoscaling and concurrency limit ones. A new policy adds one line here. */
public final class Policies {

    private Policies() {
    }

    /**
     * The policy {@code id} with {@code params} (missing ones take defaults).
     *
     * @throws IllegalArgumentException for an unknown id or invalid parameters
     */
    public static Policy create(String id, Map<String, ?> params) {
        return switch (id) {
            case TieredPolicy.ID -> new TieredPolicy(TieredPolicy.Params.fromMap(params));
            case OneUnitPolicy.ID -> OneUnitPolicy.fromMap(params);
            default -> throw new IllegalArgumentException("unknown policy " + id + " (known: " + TieredPolicy.ID
                    + ", " + OneUnitPolicy.ID + ")");
        };
    }

    /**
     * The concurrency limit policy {@code id} with {@code params} (missing ones take defaults).
     *
     * @throws IllegalArgumentException for an unknown id or invalid parameters
     */
    public static LimitPolicy createLimit(String id, Map<String, ?> params) {
        return switch (id) {
            case GradientLimitPolicy.ID -> new GradientLimitPolicy(GradientLimitPolicy.Params.fromMap(params));
            default -> throw new IllegalArgumentException("unknown limit policy " + id + " (known: "
                    + GradientLimitPolicy.ID + ")");
        };
    }
}
