/*
 * A test stand-in for the host's RequestQueue (the queue step of accept → parse → queue → ...): records every
 * submitted request so a test can inspect it and answer through its ResponseSink. The real queue is the
 * host module's unit; here only the protocol side is under test.
 */
package dev.pumaplus.protocol.h1;

import dev.pumaplus.spi.Exchange;
import dev.pumaplus.spi.RequestHead;
import dev.pumaplus.spi.ResponseSink;
import io.netty.buffer.ByteBuf;
import java.nio.channels.FileChannel;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Thread-safe enough for the socket test: submissions land in a copy-on-write list. */
final class RecordingQueue implements SubmitQueue {

    /** One submitted request and everything the protocol later did with its exchange. */
    static final class Submitted implements Exchange {
        final Object connection;
        final RequestHead head;
        /** The whole body, read from memory or from the spool file. */
        final byte[] initialBody;
        /** The body came as a spool file (it was over RequestBodyBuffer.MEMORY_BYTES). */
        final boolean spooled;
        final ResponseSink sink;
        volatile boolean cancelled;
        /** Calls of {@link #resumeResponse()}, from any thread. */
        final java.util.concurrent.atomic.AtomicInteger resumes = new java.util.concurrent.atomic.AtomicInteger();

        Submitted(Object connection, RequestHead head, ByteBuf body, FileChannel bodyFile, ResponseSink sink) {
            this.connection = connection;
            this.head = head;
            this.spooled = bodyFile != null;
            if (bodyFile == null) {
                this.initialBody = new byte[body.readableBytes()];
                body.readBytes(initialBody);
            } else {
                try (FileChannel file = bodyFile) {
                    java.nio.ByteBuffer all = java.nio.ByteBuffer.allocate((int) file.size());
                    while (all.hasRemaining() && file.read(all, all.position()) > 0) {
                        // positional reads until the whole file is in
                    }
                    this.initialBody = all.array();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
            body.release();
            this.sink = sink;
        }

        @Override
        public void resumeResponse() {
            resumes.incrementAndGet();
        }

        @Override
        public void cancel() {
            cancelled = true;
        }

        /** T6 as the protocol reported it; 0 until then. */
        volatile long sentNanos;
        /** Calls of {@link #responseSent}: the protocol promises exactly one per sent response. */
        final java.util.concurrent.atomic.AtomicInteger sentCalls = new java.util.concurrent.atomic.AtomicInteger();

        @Override
        public void responseSent(long flushedNanos) {
            sentNanos = flushedNanos;
            sentCalls.incrementAndGet();
        }

        String body() {
            return new String(initialBody, java.nio.charset.StandardCharsets.ISO_8859_1);
        }
    }

    final List<Submitted> submitted = new CopyOnWriteArrayList<>();
    /** When set, submit throws, as a host that refuses requests does. */
    volatile boolean refuse;

    @Override
    public Exchange submit(Object connection, RequestHead head, ByteBuf body, FileChannel bodyFile,
            ResponseSink sink) {
        if (refuse) {
            body.release();
            throw new IllegalStateException("refused");
        }
        Submitted s = new Submitted(connection, head, body, bodyFile, sink);
        submitted.add(s);
        return s;
    }
}
