/*
 * A response the host writes itself, without a worker: the answer to a health check path the host
 * answers (queue step of the request path, never dispatched) and the body of a shed request's 503.
 */
package dev.pumaplus.host;

import dev.pumaplus.spi.Exchange;
import dev.pumaplus.spi.ResponseSink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@link Exchange} of a request the host answered at submit: there is no body to stream (chunks are
 * released), nothing to resume or cancel. Its status is counted like any response. Thread-safe.
 */
final class HostAnswer implements Exchange {

    private final Dispatcher dispatcher;
    private final ResponseSink sink;

    HostAnswer(Dispatcher dispatcher, ResponseSink sink) {
        this.dispatcher = dispatcher;
        this.sink = sink;
    }

    /** Counts {@code status} and writes the response to the sink (which hops to its own loop). */
    void send(int status, List<Map.Entry<String, String>> headers, String text) {
        dispatcher.metrics().countStatus(status);
        write(sink, status, headers, text);
    }

    /** A complete response: {@code headers} plus Content-Length, then {@code text} as UTF-8. */
    static void write(ResponseSink sink, int status, List<Map.Entry<String, String>> headers, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        List<Map.Entry<String, String>> all = new ArrayList<>(headers.size() + 2);
        all.addAll(headers);
        if (headers.stream().noneMatch(h -> h.getKey().equalsIgnoreCase("Content-Type"))) {
            all.add(Map.entry("Content-Type", "text/plain; charset=utf-8"));
        }
        all.add(Map.entry("Content-Length", Integer.toString(bytes.length)));
        ByteBuf body = Unpooled.wrappedBuffer(bytes);
        sink.head(status, all, false);
        sink.body(body, true);
    }

    @Override
    public boolean writeBody(ByteBuf chunk, boolean last) {
        chunk.release();
        return true;
    }

    @Override
    public void resumeResponse() {
    }

    @Override
    public void cancel() {
    }

    @Override
    public void responseSent(long flushedNanos) {
    }
}
