/*
 * The response-side water marks every protocol applies (respond step): a response stops taking body from
 * the host while more than 1 MiB it accepted has not reached the client, and takes more once that is down
 * to 256 KiB, so a slow client holds a bounded amount of the protocol's memory; the host holds the rest
 * (its response spool, memory then a file) and never pauses the worker for it.
 */
package dev.pumaplus.spi;

/**
 * Counts one response's unwritten body bytes; made by {@link RequestQueue#backpressure()}, one per response.
 * A sink calls {@link #accepted} when {@link ResponseSink#body} takes bytes, {@link #pause} to learn what
 * {@code body} must answer, and {@link #written} as bytes reach the client (or are released); when
 * {@code written} returns true the sink calls {@link Exchange#resumeResponse()}. Exactly one resume answers
 * each pause. Thread-safe: accept and pause run on the host's threads, written on the protocol's.
 */
public interface ResponseBackpressure {

    /** Unwritten body bytes above which {@code body} answers false (the host holds the rest). */
    long HIGH_WATER_BYTES = 1 << 20;
    /** Unwritten body bytes at or below which a paused response is resumed. */
    long LOW_WATER_BYTES = 256 << 10;

    /** What {@link #pause} decided. */
    enum Pause {
        /** Keep sending: {@code body} answers true. */
        NONE,
        /** A pause begins with this piece: {@code body} answers false, a resume will follow. */
        STARTED,
        /** An earlier pause is still unanswered: {@code body} answers false. */
        CONTINUED
    }

    /** Counts {@code bytes} as unwritten; returns the new count. */
    long accepted(long bytes);

    /**
     * Whether the piece that brought the count to {@code count} pauses the response: never the last piece
     * ({@code endOfStream}) nor one that leaves at most {@link #HIGH_WATER_BYTES} unwritten.
     */
    Pause pause(long count, boolean endOfStream);

    /** {@code bytes} left the count; true when this ends a pause (the caller then resumes the host). */
    boolean written(long bytes);

    /** Body bytes accepted and not yet written. */
    long unwritten();
}
