/*
 * A response the host writes itself, without a worker (admission step, never queued): the answer to a
 * health check the host answers and the body of a shed request's 503.
 */
package dev.pumaplus.host.queue;

import dev.pumaplus.spi.Exchange;
import dev.pumaplus.spi.ResponseSink;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@link #write} puts a whole text response into a sink. {@link #DONE} is the {@link Exchange} of a request
 * answered that way: nothing is left to resume or cancel. Thread-safe.
 */
enum HostAnswer implements Exchange {

    DONE;

    /** A complete response: {@code headers} plus Content-Length, then {@code text} as UTF-8. Any thread. */
    static void write(ResponseSink sink, int status, List<Map.Entry<String, String>> headers, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        List<Map.Entry<String, String>> all = new ArrayList<>(headers.size() + 2);
        all.addAll(headers);
        if (headers.stream().noneMatch(h -> h.getKey().equalsIgnoreCase("Content-Type"))) {
            all.add(Map.entry("Content-Type", "text/plain; charset=utf-8"));
        }
        all.add(Map.entry("Content-Length", Integer.toString(bytes.length)));
        sink.head(status, all, false);
        sink.body(Unpooled.wrappedBuffer(bytes), true);
    }

    /** Nothing is paused: the whole answer went to the sink at once. */
    @Override
    public void resumeResponse() {
    }

    /** Nothing to cancel: the answer is written. */
    @Override
    public void cancel() {
    }

    /** Not timed: no worker was involved, so there is no total time to record. */
    @Override
    public void responseSent(long flushedNanos) {
    }
}
