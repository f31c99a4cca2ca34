/*
 * The monotonic clock the queue step reads its timing points from (T2b at admission, T3 at dispatch, the
 * end of a slot): System.nanoTime in production, a hand-moved clock in tests.
 */
package dev.pumaplus.host.measure;

/** A source of {@link System#nanoTime()}-like readings, in ns. Implementations are thread-safe. */
@FunctionalInterface
public interface NanoClock {

    /** The production clock. */
    NanoClock SYSTEM = System::nanoTime;

    /** Now, in ns on an arbitrary monotonic origin; only differences mean anything. */
    long nanoTime();
}
