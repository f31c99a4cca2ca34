/*
 * The clock of an HTTP/1.1 connection's request timings (T1 first byte and T2 headers parsed in the parse
 * step, T6 last byte sent in the respond step): System.nanoTime() as the connection's event loop reads it.
 */
package dev.pumaplus.protocol.h1;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Ticker;

/**
 * Reads time through the event loop's {@link Ticker}, the clock its timers run on, so the timings and the
 * timeouts share one clock and a test moves both with an {@code EmbeddedChannel}'s controllable time
 * ({@code freezeTime}, {@code advanceTimeBy}) instead of sleeping. On a real event loop the ticker is the
 * system ticker and the value is exactly {@link System#nanoTime()}, the clock the host compares T1, T2 and
 * T6 with. Thread-safe (no state).
 */
final class RequestClock {

    private RequestClock() {
    }

    /** Now, in nanoseconds on {@link System#nanoTime()}'s scale, as {@code loop}'s ticker has it. */
    static long nanoTime(EventExecutor loop) {
        Ticker ticker = loop.ticker();
        return ticker.initialNanoTime() + ticker.nanoTime();
    }
}
