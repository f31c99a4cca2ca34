/*
 * A ResponseSink for tests: records, in order, what the host delivered for one exchange, as a protocol
 * bundle would receive it at the end of the request path.
 */
package dev.pumaplus.host.queue;

import dev.pumaplus.spi.ResponseSink;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Thread-safe recorder; {@link #done} completes on end of stream or failure. {@code body} answers
 * {@link #acceptMore} (true unless a test sets it), so a test can pause the response.
 */
public class RecordingSink implements ResponseSink {

    public final List<String> events = new CopyOnWriteArrayList<>();
    final StringBuilder body = new StringBuilder();
    public final CompletableFuture<String> done = new CompletableFuture<>();
    public volatile int status;
    public volatile boolean acceptMore = true;
    /** Calls of {@code body}, including the one carrying end of stream. */
    public volatile int bodies;
    /** Run inside {@code body} before it returns (e.g. to resume from there). */
    volatile Runnable duringBody = () -> { };

    @Override
    public void head(int status, List<Map.Entry<String, String>> headers, boolean endOfStream) {
        this.status = status;
        events.add("head " + status + " " + headers + (endOfStream ? " end" : ""));
        if (endOfStream) {
            done.complete("end");
        }
    }

    @Override
    public synchronized boolean body(ByteBuf chunk, boolean endOfStream) {
        body.append(chunk.toString(StandardCharsets.ISO_8859_1));
        chunk.release();
        bodies++;
        events.add("body" + (endOfStream ? " end" : ""));
        if (endOfStream) {
            done.complete("end");
        }
        duringBody.run();
        return acceptMore;
    }

    @Override
    public void fail(int status, String reason, boolean headSent) {
        events.add("fail " + status + " headSent=" + headSent);
        done.complete("fail " + status + " headSent=" + headSent);
    }

    public synchronized String bodyText() {
        return body.toString();
    }
}
