/*
 * For HTTP/1.1 over TLS when HTTP/3 is served on the same port (queue → ... → respond): adds the Alt-Svc
 * header that advertises HTTP/3 to every response head, so browsers find the QUIC listener.
 */
package dev.pumaplus.protocol.h1;

import dev.pumaplus.spi.Exchange;
import dev.pumaplus.spi.RequestBodyBuffer;
import dev.pumaplus.spi.RequestHead;
import dev.pumaplus.spi.RequestQueue;
import dev.pumaplus.spi.ResponseBackpressure;
import dev.pumaplus.spi.ResponseSink;
import io.netty.buffer.ByteBuf;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Wraps the host's queue: each submitted sink is wrapped so that {@link ResponseSink#head} carries one more
 * header. Every other sink method is forwarded unchanged ({@link ForwardingSink}). Thread-safe (immutable).
 *
 * @param queue  the host's queue
 * @param altSvc the {@code Alt-Svc} value, e.g. {@code h3=":443"; ma=86400}
 */
record AltSvcQueue(RequestQueue queue, String altSvc) implements RequestQueue {

    @Override
    public Exchange submit(Object connection, RequestHead head, ByteBuf body, FileChannel bodyFile,
                           ResponseSink sink) {
        return queue.submit(connection, head, body, bodyFile, new Sink(sink));
    }

    @Override
    public RequestBodyBuffer bodyBuffer(long limitBytes, RequestBodyBuffer.Submitter submitter) {
        return queue.bodyBuffer(limitBytes, submitter);
    }

    @Override
    public ResponseBackpressure backpressure() {
        return queue.backpressure();
    }

    private final class Sink extends ForwardingSink {

        Sink(ResponseSink sink) {
            super(sink);
        }

        @Override
        public void head(int status, List<Map.Entry<String, String>> headers, boolean endOfStream) {
            List<Map.Entry<String, String>> more = new ArrayList<>(headers.size() + 1);
            more.addAll(headers);
            more.add(Map.entry("Alt-Svc", altSvc));
            sink.head(status, more, endOfStream);
        }
    }
}
