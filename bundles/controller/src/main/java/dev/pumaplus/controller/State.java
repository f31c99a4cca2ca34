/*
 * The policy's memory between ticks: breach and idle streaks, the tier it is in (for hysteresis) and when
 * it last scaled (for cooldowns). Carried by the driver or the simulator from one decision to the next and
 * written to the decision log, so replay starts every line from exactly the state the live policy saw.
 */
package dev.pumaplus.controller;

/**
 * Immutable policy state. Ticks are {@link Observation#tick()} numbers; {@link #NEVER} means "not yet".
 *
 * @param tier         the tier of the previous decision ({@code steady}, {@code warm}, {@code hot},
 *                     {@code idle}); hysteresis keeps a breach tier until the signal falls below the exit
 *                     ratio
 * @param breachTicks  consecutive ticks in a breach tier (warm or hot)
 * @param idleTicks    consecutive idle ticks
 * @param lastUpTick   tick of the last decision that added units, or {@link #NEVER}
 * @param lastDownTick tick of the last decision that removed units, or {@link #NEVER}
 */
public record State(String tier, int breachTicks, int idleTicks, long lastUpTick, long lastDownTick) {

    /** "Not yet" for {@link #lastUpTick} and {@link #lastDownTick}. */
    public static final long NEVER = -1;

    /** The state before the first tick. */
    public static State initial() {
        return new State(Tier.STEADY, 0, 0, NEVER, NEVER);
    }

    /** Tier names as they appear in the decision log. */
    public static final class Tier {
        public static final String STEADY = "steady";
        public static final String WARM = "warm";
        public static final String HOT = "hot";
        public static final String IDLE = "idle";

        private Tier() {
        }
    }
}
