/*
 * One request's body on its way in (parse → queue), made for a protocol by RequestQueue.bodyBuffer: counted
 * against the body limit, held in memory up to 112 KiB and spooled to an unnamed temporary file beyond that,
 * and submitted only once it is complete, so a request never reaches the queue, let alone a worker slot,
 * before the client has sent all of it. HTTP/1.1, h2 and HTTP/3 feed every request body through one of
 * these, so the rule exists once. Also names the host's spool directory and how any spool file is closed.
 */
package dev.pumaplus.host.queue;

import dev.pumaplus.spi.RequestBodyBuffer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Ticker;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The {@link RequestBodyBuffer} of the host; see that interface for the rule, the progress deadline, the
 * lifecycle and the threading.
 */
public final class SpoolingBodyBuffer implements RequestBodyBuffer {

    /**
     * Where spool files are made: {@code TMPDIR} when the host's environment sets it, else
     * {@code java.io.tmpdir}; the directory Ruby's {@code Dir.tmpdir} gives the workers for theirs.
     */
    public static final Path SPOOL_DIR = spoolDir(System.getenv("TMPDIR"));

    static Path spoolDir(String tmpdir) {
        return Path.of(tmpdir == null || tmpdir.isEmpty() ? System.getProperty("java.io.tmpdir") : tmpdir);
    }

    /** Before the submit: null, the only non-empty piece so far, or {@link #pieces}. */
    private ByteBuf held;
    /** Created at the second non-empty piece held. */
    private CompositeByteBuf pieces;
    /** The spool file once the body passed {@link #MEMORY_BYTES}; null before and after the submit. */
    private FileChannel spool;
    private long received;
    /** The last piece was seen, or the body was refused, abandoned or too large: nothing more is taken. */
    private volatile boolean ended;
    /** Ticker time of the last byte received (or of {@link #watch}); read by the deadline's check. */
    private volatile long progressNanos;
    private Ticker ticker;
    private volatile ScheduledFuture<?> deadline;
    private final long limitBytes;
    private final Submitter submitter;

    /**
     * @param limitBytes the most body bytes a request may have ({@code http_content_length_limit}); 0 or
     *                   less: no limit
     * @param submitter  called once, when the whole body has arrived
     */
    public SpoolingBodyBuffer(long limitBytes, Submitter submitter) {
        this.limitBytes = limitBytes;
        this.submitter = submitter;
    }

    /**
     * Arms the progress deadline: when {@code timeoutNanos} pass without a new body byte before the body
     * ended, {@code stalled} runs once on {@code timer} (the protocol then answers 408 and abandons this
     * buffer). The check is scheduled once and moves itself to the new deadline when bytes came meanwhile,
     * so receiving costs a field write. No-op for a timeout of 0 or less.
     *
     * @param timer the executor whose clock ({@link EventExecutor#ticker()}) and schedule the deadline uses
     */
    @Override
    public void watch(EventExecutor timer, long timeoutNanos, Runnable stalled) {
        if (timeoutNanos <= 0 || ended) {
            return;
        }
        ticker = timer.ticker();
        progressNanos = ticker.nanoTime();
        deadline = timer.schedule(() -> check(timer, timeoutNanos, stalled), timeoutNanos, TimeUnit.NANOSECONDS);
    }

    private void check(EventExecutor timer, long timeoutNanos, Runnable stalled) {
        if (ended) {
            return;
        }
        long idle = ticker.nanoTime() - progressNanos;
        if (idle >= timeoutNanos) {
            stalled.run();
        } else {
            deadline = timer.schedule(() -> check(timer, timeoutNanos, stalled), timeoutNanos - idle,
                    TimeUnit.NANOSECONDS);
        }
    }

    /**
     * Takes the next piece of the body (ownership transfers), and submits the request when the piece is the
     * last. A piece after the end is released.
     *
     * @param last true on the body's final piece (which may be empty)
     */
    @Override
    public Flow add(ByteBuf piece, boolean last) {
        if (ended) {
            piece.release();
            return Flow.READ;
        }
        int size = piece.readableBytes();
        received += size;
        if (size > 0 && ticker != null) {
            progressNanos = ticker.nanoTime();
        }
        if (limitBytes > 0 && received > limitBytes) {
            piece.release();
            abandon();
            return Flow.TOO_LARGE;
        }
        try {
            if (spool == null && received <= MEMORY_BYTES) {
                hold(piece);
            } else {
                spool(piece);
            }
        } catch (IOException e) {
            abandon();
            return Flow.REFUSED;
        }
        if (!last) {
            return Flow.READ;
        }
        end();
        return submit() ? Flow.READ : Flow.REFUSED;
    }

    /**
     * The rest of the body will never come (the client went away, the protocol gave up on the request):
     * releases what is held and closes the spool file. Idempotent; later pieces are released.
     */
    @Override
    public void abandon() {
        if (held != null) {
            held.release();
            held = null;
            pieces = null;
        }
        if (spool != null) {
            closeSpool(spool);
            spool = null;
        }
        end();
    }

    private void end() {
        ended = true;
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
    }

    private void hold(ByteBuf piece) {
        if (!piece.isReadable()) {
            piece.release();
        } else if (held == null) {
            held = piece;
        } else {
            if (pieces == null) {
                pieces = Unpooled.compositeBuffer(Integer.MAX_VALUE);
                pieces.addComponent(true, held);
                held = pieces;
            }
            pieces.addComponent(true, piece);
        }
    }

    /** Writes {@code piece} (released here) to the spool file, making it first with what is held. */
    private void spool(ByteBuf piece) throws IOException {
        try {
            if (spool == null) {
                spool = open();
                if (held != null) {
                    ByteBuf h = held;
                    held = null;
                    pieces = null;
                    try {
                        write(spool, h);
                    } finally {
                        h.release();
                    }
                }
            }
            write(spool, piece);
        } finally {
            piece.release();
        }
    }

    /** A new spool file with no name: created owner-only, opened, and unlinked before it holds a byte. */
    private static FileChannel open() throws IOException {
        Path path = Files.createTempFile(SPOOL_DIR, "puma-plus-body-", ".tmp");
        try {
            return FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        } finally {
            Files.delete(path);
        }
    }

    private static void write(FileChannel file, ByteBuf bytes) throws IOException {
        for (ByteBuffer b : bytes.nioBuffers()) {
            while (b.hasRemaining()) {
                file.write(b);
            }
        }
    }

    /** False when the host refused the request. */
    private boolean submit() {
        ByteBuf body = held == null ? Unpooled.EMPTY_BUFFER : held;
        FileChannel file = spool;
        held = null;
        pieces = null;
        spool = null;
        try {
            submitter.submit(body, file);
            return true;
        } catch (RuntimeException e) {
            // body and file went to the host with the call (RequestQueue.submit's ownership rule)
            return false;
        }
    }

    /**
     * Closes a spool file (a body's, or a response's in the host), if there is one: it has no name, so this
     * frees its blocks. Whoever owns a spool file closes it with this.
     */
    public static void closeSpool(FileChannel file) {
        if (file == null) {
            return;
        }
        try {
            file.close();
        } catch (IOException ignored) {
            // unnamed: closing it frees its blocks, and there is nothing else to lose
        }
    }
}
