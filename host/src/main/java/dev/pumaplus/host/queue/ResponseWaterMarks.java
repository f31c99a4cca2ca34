/*
 * The response-side water marks every protocol applies (respond step), made for each response by
 * RequestQueue.backpressure(): a response stops taking body from the host while more than 1 MiB it accepted
 * has not reached the client, and takes more once that is down to 256 KiB, so a slow client holds a bounded
 * amount of the protocol's memory; the host holds the rest (its response spool, memory then a file) and
 * never pauses the worker for it.
 */
package dev.pumaplus.host.queue;

import dev.pumaplus.spi.ResponseBackpressure;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@link ResponseBackpressure} of one response, over two atomics. Thread-safe: accept and pause run on
 * the host's threads, written on the protocol's.
 */
public final class ResponseWaterMarks implements ResponseBackpressure {

    private final AtomicLong unwritten = new AtomicLong();
    private final AtomicBoolean paused = new AtomicBoolean();

    @Override
    public long accepted(long bytes) {
        return unwritten.addAndGet(bytes);
    }

    @Override
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

    @Override
    public boolean written(long bytes) {
        return bytes != 0 && unwritten.addAndGet(-bytes) <= LOW_WATER_BYTES && paused.compareAndSet(true, false);
    }

    @Override
    public long unwritten() {
        return unwritten.get();
    }
}
