/*
 * A test stand-in for the host's RequestQueue (the queue step of accept → parse → queue → ...): records every
 * submitted request so a test can inspect it and answer through its ResponseSink. The real queue is the
 * host module's unit; here only the protocol side is under test.
 */
package dev.pumaplus.protocol.h1;

import dev.pumaplus.spi.Exchange;
import dev.pumaplus.spi.RequestHead;
import dev.pumaplus.spi.RequestQueue;
import dev.pumaplus.spi.ResponseSink;
import io.netty.buffer.ByteBuf;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Thread-safe enough for the socket test: submissions land in a copy-on-write list. */
final class RecordingQueue implements RequestQueue {

    /** One submitted request and everything the protocol later did with its exchange. */
    static final class Submitted implements Exchange {
        final Object connection;
        final RequestHead head;
        final byte[] initialBody;
        final boolean bodyComplete;
        final ResponseSink sink;
        final ByteArrayOutputStream streamed = new ByteArrayOutputStream();
        volatile boolean lastSeen;
        volatile boolean cancelled;
        volatile boolean acceptMore = true;
        volatile int writeBodyCalls;
        /** Calls of {@link #resumeResponse()}, from any thread. */
        final java.util.concurrent.atomic.AtomicInteger resumes = new java.util.concurrent.atomic.AtomicInteger();

        Submitted(Object connection, RequestHead head, ByteBuf body, boolean bodyComplete, ResponseSink sink) {
            this.connection = connection;
            this.head = head;
            this.initialBody = new byte[body.readableBytes()];
            body.readBytes(initialBody);
            body.release();
            this.bodyComplete = bodyComplete;
            this.sink = sink;
        }

        @Override
        public synchronized boolean writeBody(ByteBuf chunk, boolean last) {
            writeBodyCalls++;
            byte[] bytes = new byte[chunk.readableBytes()];
            chunk.readBytes(bytes);
            chunk.release();
            streamed.writeBytes(bytes);
            lastSeen |= last;
            return acceptMore;
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
    public Exchange submit(Object connection, RequestHead head, ByteBuf body, boolean bodyComplete,
            ResponseSink sink) {
        if (refuse) {
            body.release();
            throw new IllegalStateException("refused");
        }
        Submitted s = new Submitted(connection, head, body, bodyComplete, sink);
        submitted.add(s);
        return s;
    }
}
