/*
 * A test stand-in for the host's RequestQueue (the queue step of accept → parse → queue → ...): records the
 * target of every request an HTTP/2 stream submits, which is what "the app was called" means to the
 * protocol side, and answers each one at once with 200 "hello", as a worker would.
 */
package dev.pumaplus.protocol.h2;

import dev.pumaplus.spi.Exchange;
import dev.pumaplus.spi.RequestHead;
import dev.pumaplus.host.queue.ResponseWaterMarks;
import dev.pumaplus.host.queue.SpoolingBodyBuffer;
import dev.pumaplus.spi.RequestBodyBuffer;
import dev.pumaplus.spi.RequestQueue;
import dev.pumaplus.spi.ResponseBackpressure;
import dev.pumaplus.spi.ResponseSink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/** The sink's calls hop to the stream's event loop, so answering inside {@link #submit} is safe. */
final class AnsweringQueue implements RequestQueue {

    @Override
    public RequestBodyBuffer bodyBuffer(long limitBytes, RequestBodyBuffer.Submitter submitter) {
        return new SpoolingBodyBuffer(limitBytes, submitter); // the host's buffer
    }

    @Override
    public ResponseBackpressure backpressure() {
        return new ResponseWaterMarks(); // the host's water marks
    }

    /** The targets submitted, in order. */
    final List<String> targets = new CopyOnWriteArrayList<>();

    @Override
    public Exchange submit(Object connection, RequestHead head, ByteBuf body, FileChannel bodyFile,
            ResponseSink sink) {
        body.release();
        targets.add(head.target());
        sink.head(200, List.of(Map.entry("content-type", "text/plain")), false);
        sink.body(Unpooled.copiedBuffer("hello\n", StandardCharsets.US_ASCII), true);
        return new Exchange() {
            @Override
            public void resumeResponse() {
            }

            @Override
            public void cancel() {
            }

            @Override
            public void responseSent(long flushedNanos) {
            }
        };
    }
}
