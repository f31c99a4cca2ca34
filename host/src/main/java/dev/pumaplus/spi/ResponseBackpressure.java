/*
 * The response-side water marks every protocol applies (respond step): a response stops taking body from
 * the host while more than 1 MiB it accepted has not reached the client, and takes more once that is down
 * to 256 KiB, so a slow client holds a bounded amount of the protocol's memory; the host holds the rest
 * (its response spool, memory then a file) and never pauses the worker for it.
 */
package dev.pumaplus.spi;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts one response's unwritten body bytes. A sink calls {@link #accepted} when {@link ResponseSink#body}
 * takes bytes, {@link #pause} to learn what {@code body} must answer, and {@link #written} as bytes reach the
 * client (or are released); when {@code written} returns true the sink calls
 * {@link Exchange#resumeResponse()}. Exactly one resume answers each pause. Thread-safe: accept and pause
 * run on the host's threads, written on the protocol's.
 */
public final class ResponseBackpressure {

    /** Unwritten body bytes above which {@code body} answers false (the host holds the rest). */
    public static final long HIGH_WATER_BYTES = 1 << 20;
    /** Unwritten body bytes at or below which a paused response is resumed. */
    public static final long LOW_WATER_BYTES = 256 << 10;

    /** What {@link #pause} decided. */
    public enum Pause {
        /** Keep sending: {@code body} answers true. */
        NONE,
        /** A pause begins with this piece: {@code body} answers false, a resume will follow. */
        STARTED,
        /** An earlier pause is still unanswered: {@code body} answers false. */
        CONTINUED
    }

    private final AtomicLong unwritten = new AtomicLong();
    private final AtomicBoolean paused = new AtomicBoolean();

    /** Counts {@code bytes} as unwritten; returns the new count. */
    public long accepted(long bytes) {
        return unwritten.addAndGet(bytes);
    }

    /** Whether the piece that brought the count to {@code count} pauses the response. */
    public Pause pause(long count, boolean endOfStream) {
        if (endOfStream || count <= HIGH_WATER_BYTES) {
            return Pause.NONE;
        }
        if (paused.getAndSet(true)) {
            return Pause.CONTINUED; // its resume comes once the writes drain
        }
        // Re-check after publishing the pause: writes that completed meanwhile saw paused still false and
        // sent no resume. If they brought the count down, take the pause back (unless a completion already
        // claimed it, in which case its resume is on its way and pausing is the right answer).
        if (unwritten.get() <= LOW_WATER_BYTES && paused.compareAndSet(true, false)) {
            return Pause.NONE;
        }
        return Pause.STARTED;
    }

    /** {@code bytes} left the count; true when this ends a pause (the caller then resumes the host). */
    public boolean written(long bytes) {
        return bytes != 0 && unwritten.addAndGet(-bytes) <= LOW_WATER_BYTES && paused.compareAndSet(true, false);
    }

    /** Body bytes accepted and not yet written. */
    public long unwritten() {
        return unwritten.get();
    }
}
