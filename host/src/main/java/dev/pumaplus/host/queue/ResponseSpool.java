/*
 * The part of one response the client has not taken yet (worker → respond): the worker link hands every
 * response body piece and file region here, and this delivers them to the protocol's ResponseSink as fast as
 * the sink takes them, holding the rest (in memory up to a bound, then in an unnamed spool file) so the
 * worker is read at its own speed and its slot is free once it has written its response.
 */
package dev.pumaplus.host.queue;

import dev.pumaplus.spi.ResponseSink;
import dev.pumaplus.wire.ResponseFile;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.DefaultFileRegion;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;

/**
 * While the sink takes everything ({@link ResponseSink#body} answers true) and nothing is held, a piece
 * goes straight through: a streamed body reaches the client chunk by chunk. Once the sink answers false the
 * spool holds every later piece, in order, until {@link #resume}: body bytes in memory up to
 * {@link #MEMORY_BYTES}, past that appended to a spool file that has no name (made in
 * {@link SpoolingBodyBuffer#SPOOL_DIR} and unlinked at once); a file region (RESPONSE_FILE) is held as its
 * open file, never copied. A held file region goes to a sink that takes files as one region; to one that
 * does not, and for the spool file's bytes, it is read in pieces of {@link #PIECE_BYTES}, each a
 * {@code body} call, stopping whenever the sink answers false.
 *
 * <p>Failures: a spool file that cannot be made, written or read, or a file region that cannot be read,
 * fails the response ({@code fail(502, ..., true)}: the head is out, so the client sees a cut response);
 * everything held is released and later pieces are dropped.
 *
 * <p>Threading: confined to the event loop of the worker link the response came on; the link calls every
 * method there, also after it has moved on to another request (a resume or cancel of this response).
 */
final class ResponseSpool {

    /** Body bytes held in memory per response before the spool file is used. */
    static final int MEMORY_BYTES = 256 * 1024;
    /** Bytes read from a file (held region or spool file) per {@code body} call. */
    static final int PIECE_BYTES = 256 * 1024;

    private final ResponseRecord response;
    private final ByteBufAllocator alloc;
    /**
     * Held parts in order: {@link ByteBuf}, {@link Spooled} or {@link Region}. Sized for the usual case, a
     * client that keeps up and leaves it empty: one spool per request, so no 17-slot default array each.
     */
    private final ArrayDeque<Object> held = new ArrayDeque<>(1);
    private long heldInMemory;
    /** The spool file, once bytes went to it; appended at {@link #spoolEnd}, read at {@link #spoolRead}. */
    private FileChannel spool;
    private long spoolEnd;
    private long spoolRead;
    /** The sink answered false and has not resumed yet. */
    private boolean paused;
    /** The end of stream is held (it goes with the last held part, or alone as an empty piece). */
    private boolean endHeld;
    /** Nothing more is delivered: the end went out, or the response failed or was cancelled. */
    private boolean closed;

    /** {@code length} bytes of the spool file, next in line. */
    private record Spooled(long length) {
    }

    /** A region of a RESPONSE_FILE's file; {@code offset} moves as pieces of it are delivered. */
    private static final class Region {
        final FileChannel data;
        long offset;
        final long end;

        Region(FileChannel data, long offset, long length) {
            this.data = data;
            this.offset = offset;
            this.end = offset + length;
        }
    }

    ResponseSpool(ResponseRecord response, ByteBufAllocator alloc) {
        this.response = response;
        this.alloc = alloc;
    }

    /** Whether parts are held for the sink (the response is not all delivered yet). */
    boolean holding() {
        return !closed && (!held.isEmpty() || endHeld);
    }

    /** A body piece from the worker (ownership transfers): delivered now, or held behind earlier parts. */
    void body(ByteBuf chunk, boolean endOfStream) {
        if (closed) {
            chunk.release();
            return;
        }
        if (!paused && held.isEmpty()) {
            deliver(chunk, endOfStream);
            return;
        }
        endHeld = endOfStream;
        if (!chunk.isReadable()) {
            chunk.release();
        } else if (spool == null && heldInMemory + chunk.readableBytes() <= MEMORY_BYTES) {
            heldInMemory += chunk.readableBytes();
            held.add(chunk);
        } else {
            append(chunk);
        }
    }

    /**
     * A file body the worker named (RESPONSE_FILE), opened here: delivered now, or held. A file the host
     * cannot open fails the response (the head is out: the client sees a truncated response).
     */
    void file(ResponseFile named, boolean endOfStream) {
        FileChannel data;
        try {
            data = FileChannel.open(Path.of(named.path()), StandardOpenOption.READ);
        } catch (IOException | RuntimeException e) {
            discard();
            response.fail(502, "cannot read the response's file " + named.path() + ": " + e, true);
            return;
        }
        file(data, named.offset(), named.length(), endOfStream);
    }

    /** A file region, opened ({@code data} is owned from now on): delivered now, or held. */
    void file(FileChannel data, long offset, long length, boolean endOfStream) {
        if (closed) {
            SpoolingBodyBuffer.closeSpool(data);
            return;
        }
        endHeld = endOfStream;
        held.add(new Region(data, offset, length));
        if (!paused) {
            pump();
        }
    }

    /** The sink can take more: delivers held parts until it answers false again or all are out. */
    void resume() {
        paused = false;
        pump();
    }

    /** The client went away, or the response failed: releases everything held; nothing more is delivered. */
    void discard() {
        closed = true;
        for (Object part; (part = held.poll()) != null; ) {
            if (part instanceof ByteBuf b) {
                b.release();
            } else if (part instanceof Region r) {
                SpoolingBodyBuffer.closeSpool(r.data);
            }
        }
        heldInMemory = 0;
        endHeld = false;
        if (spool != null) {
            SpoolingBodyBuffer.closeSpool(spool);
            spool = null;
        }
    }

    private void deliver(ByteBuf piece, boolean endOfStream) {
        ResponseSink sink = response.sink();
        boolean more = sink.body(piece, endOfStream);
        if (endOfStream) {
            discard(); // all out: close the spool file
        } else {
            paused = !more;
        }
    }

    private void pump() {
        try {
            while (!paused && !closed) {
                Object part = held.peek();
                if (part == null) {
                    if (endHeld) {
                        deliver(alloc.buffer(0), true);
                    }
                    return;
                }
                if (part instanceof ByteBuf b) {
                    held.poll();
                    heldInMemory -= b.readableBytes();
                    deliver(b, endHeld && held.isEmpty());
                } else if (part instanceof Spooled s) {
                    held.poll();
                    deliverSpooled(s);
                } else {
                    deliverRegion((Region) part);
                }
            }
        } catch (IOException e) {
            failed("the response's spooled bytes could not be read: " + e);
        }
    }

    /** Reads the next piece of the spool file; puts back what is left of {@code s} when the sink pauses. */
    private void deliverSpooled(Spooled s) throws IOException {
        long left = s.length();
        while (left > 0) {
            int size = (int) Math.min(PIECE_BYTES, left);
            ByteBuf piece = read(spool, spoolRead, size);
            spoolRead += size;
            left -= size;
            boolean last = left == 0 && held.isEmpty() && endHeld;
            deliver(piece, last);
            if (paused && left > 0) {
                held.addFirst(new Spooled(left));
                return;
            }
            if (closed) {
                return;
            }
        }
        if (held.isEmpty() && !endHeld && spoolRead == spoolEnd) {
            // everything spooled is out: start the file over rather than let it grow for the whole response
            spool.truncate(0);
            spoolRead = 0;
            spoolEnd = 0;
        }
    }

    private void deliverRegion(Region r) throws IOException {
        ResponseSink sink = response.sink();
        if (sink.acceptsFiles()) {
            held.poll();
            boolean last = held.isEmpty() && endHeld;
            boolean more = sink.file(new DefaultFileRegion(r.data, r.offset, r.end - r.offset), last);
            if (last) {
                discard();
            } else {
                paused = !more;
            }
            return;
        }
        while (r.offset < r.end) {
            int size = (int) Math.min(PIECE_BYTES, r.end - r.offset);
            ByteBuf piece = read(r.data, r.offset, size);
            r.offset += size;
            boolean done = r.offset == r.end;
            if (done) {
                held.poll();
                SpoolingBodyBuffer.closeSpool(r.data);
            }
            deliver(piece, done && held.isEmpty() && endHeld);
            if (paused || closed) {
                return;
            }
        }
    }

    /** Exactly {@code size} bytes of {@code file} from {@code position}. */
    private ByteBuf read(FileChannel file, long position, int size) throws IOException {
        ByteBuf piece = alloc.buffer(size);
        try {
            int done = 0;
            while (done < size) {
                int n = piece.writeBytes(file, position + done, size - done);
                if (n <= 0) {
                    throw new IOException("the file ended " + (size - done) + " bytes early");
                }
                done += n;
            }
            return piece;
        } catch (IOException | RuntimeException e) {
            piece.release();
            throw e;
        }
    }

    /** Appends {@code chunk} (released here) to the spool file, making the file first. */
    private void append(ByteBuf chunk) {
        int size = chunk.readableBytes();
        try {
            if (spool == null) {
                Path path = Files.createTempFile(SpoolingBodyBuffer.SPOOL_DIR, "puma-plus-response-", ".tmp");
                try {
                    spool = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
                } finally {
                    Files.delete(path);
                }
            }
            for (ByteBuffer b : chunk.nioBuffers()) {
                while (b.hasRemaining()) {
                    spoolEnd += spool.write(b, spoolEnd);
                }
            }
        } catch (IOException e) {
            failed("the response could not be spooled: " + e);
            return;
        } finally {
            chunk.release();
        }
        Object last = held.peekLast();
        if (last instanceof Spooled s) {
            held.pollLast();
            held.add(new Spooled(s.length() + size));
        } else {
            held.add(new Spooled(size));
        }
    }

    private void failed(String reason) {
        discard();
        if (!response.cancelled()) {
            response.fail(502, reason, true);
        }
    }
}
