/*
 * One HTTP/3 request (parse → queue → ... → respond): Flupke calls handleRequest on a virtual thread per
 * request stream; it maps the request to a RequestHead exactly as HTTP/2 does, reads the body into a
 * RequestBodyBuffer, which submits it to the host's RequestQueue, and writes the response the host
 * delivers, flushing each body chunk as it arrives. A body that stalls is answered 408 here.
 */
package dev.pumaplus.protocol.h3;

import dev.pumaplus.spi.Exchange;
import dev.pumaplus.spi.HeaderFields;
import dev.pumaplus.spi.RequestBodyBuffer;
import dev.pumaplus.spi.RequestHead;
import dev.pumaplus.spi.RequestQueue;
import dev.pumaplus.spi.ResponseBackpressure;
import dev.pumaplus.spi.ResponseSink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.EventExecutorGroup;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import tech.kwik.core.QuicStream;
import tech.kwik.flupke.impl.Http3ConnectionImpl;
import tech.kwik.flupke.server.HttpRequestHandler;
import tech.kwik.flupke.server.HttpServerRequest;
import tech.kwik.flupke.server.HttpServerResponse;

/**
 * Env mapping as in HTTP/2: {@code :authority} becomes the {@code host} header, first; the scheme is
 * {@code https}; SERVER_PROTOCOL is {@code HTTP/3}. One difference the library imposes: Flupke hands the
 * headers over as {@code java.net.http.HttpHeaders}, which orders them by name, so the HTTP_* pairs of an
 * HTTP/3 request follow name order, not arrival order.
 *
 * <p>Fairness key: Flupke does not expose the QUIC connection to the handler, so the client's address
 * and port (one QUIC connection's 4-tuple) stands for it, through one key object per address while it has
 * requests in flight.
 *
 * <p>Body-progress deadline, as HTTP/1.1 and h2 have it: a body that brings no new byte for
 * {@code first_data_timeout} ({@link RequestBodyBuffer#watch}, on one of the host's event loops) has its
 * stream's input aborted (STOP_SENDING with H3_NO_ERROR, which also ends the blocked read), and the request
 * thread then answers 408 on the stream, as RFC 9114 §4.1.1 allows a server that needs no more of a request:
 * the QUIC connection and its other streams carry on. The request was never submitted, so no slot and no
 * app saw it; its held bytes and spool file are released with the body buffer.
 *
 * <p>Threading: {@link #handleRequest} runs on its own virtual thread and blocks until the response is
 * written; the {@link ResponseSink} methods of its exchange are called by the host and only enqueue; a
 * stalled body's deadline fires on an event loop ({@link Stall}).
 */
final class H3RequestHandler implements HttpRequestHandler {

    /** Bytes read from the request stream at once (Flupke's stream hands over what QUIC has received). */
    private static final int READ_BYTES = 64 * 1024;
    /** What {@link #read} returns when the body's deadline passed instead of a count or -1. */
    private static final int STALLED = -2;

    private final RequestQueue queue;
    private final InetSocketAddress local;
    private final long contentLengthLimit;
    private final EventExecutorGroup timers;
    private final long bodyTimeoutNanos;
    private final Map<InetSocketAddress, ConnectionKey> keys = new ConcurrentHashMap<>();

    /**
     * @param timers           the host's event loops, whose clocks and schedules run the body deadlines
     * @param bodyTimeoutNanos a request body that brings no new byte for this long is answered 408
     *                         ({@code first_data_timeout}); 0 or less: none
     */
    H3RequestHandler(RequestQueue queue, InetSocketAddress local, long contentLengthLimit, EventExecutorGroup timers,
            long bodyTimeoutNanos) {
        this.queue = queue;
        this.local = local;
        this.contentLengthLimit = contentLengthLimit;
        this.timers = timers;
        this.bodyTimeoutNanos = bodyTimeoutNanos;
    }

    @Override
    public void handleRequest(HttpServerRequest request, HttpServerResponse response) throws IOException {
        if ("CONNECT".equals(request.method())) {
            // Only an extended CONNECT gets here (Flupke answers a plain one 501). Left unanswered, Flupke hands
            // it to the extension of its :protocol (WebTransportExtension), or answers 501 when there is none.
            return;
        }
        long start = System.nanoTime();
        List<Map.Entry<String, String>> headers = new ArrayList<>();
        String authority = request.authority();
        if (authority != null) {
            headers.add(Map.entry("host", authority));
        }
        long contentLength = -1;
        for (Map.Entry<String, List<String>> header : request.headers().map().entrySet()) {
            String name = header.getKey().toLowerCase(Locale.ROOT);
            if (name.startsWith(":") || (authority != null && name.equals("host"))) {
                continue;
            }
            for (String value : header.getValue()) {
                headers.add(Map.entry(name, value));
                if (name.equals("content-length") && contentLength < 0) {
                    try {
                        contentLength = Long.parseLong(value.trim());
                    } catch (NumberFormatException ignored) {
                        // passed on as received; the app sees it
                    }
                }
            }
        }
        if (contentLengthLimit > 0 && contentLength > contentLengthLimit) {
            answer(response, 413);
            return;
        }
        InetSocketAddress remote = request.remoteAddress();
        RequestHead head = new RequestHead(request.method(), request.path(), "HTTP/3", "https", local, remote,
                Collections.unmodifiableList(headers), start, start);
        ConnectionKey key = acquire(remote);
        try {
            serve(head, key, request.body(), H3ConnectionFactory.requestStream(), response);
        } finally {
            release(remote, key);
        }
    }

    /**
     * Reads the body through the request's {@link RequestBodyBuffer}, which submits the request once the whole
     * body has arrived (a large one spooled to a file), then writes the response.
     *
     * @param quic the request's QUIC stream, whose input {@code in} reads (Flupke's DATA frames of it)
     */
    private void serve(RequestHead head, ConnectionKey key, InputStream in, QuicStream quic,
            HttpServerResponse response) throws IOException {
        SendRearm writes = new SendRearm(quic.getOutputStream(), quic.getStreamId());
        Stream stream = new Stream(queue.backpressure(), quic, writes);
        RequestBodyBuffer body = queue.bodyBuffer(contentLengthLimit,
                (bytes, file) -> stream.submitted(queue.submit(key, head, bytes, file, stream)));
        Stall stall = new Stall(quic);
        try {
            // Armed before the first read: a body that never starts stalls too. Flupke does not say whether
            // the HEADERS frame ended the stream, so a bodyless request arms it as well, until its first read.
            body.watch(timers.next(), bodyTimeoutNanos, stall::expire);
            byte[] buf = new byte[READ_BYTES];
            RequestBodyBuffer.Flow flow;
            int n;
            do {
                n = read(in, buf, stall);
                if (n == STALLED) {
                    // Kwik's abort interrupts the reader it finds waiting; the flag must not reach the writes.
                    Thread.interrupted();
                    answer(response, 408); // the client stopped sending its body
                    // Thrown, not returned: Flupke, after a handler returns, judges the body's framing (a read
                    // cut between DATA frames is a connection error) and closes the stream's input and output
                    // again; a handler's IOException it ignores. The catch below abandons the body.
                    throw new IOException("request body stalled for first_data_timeout: answered 408");
                }
                flow = n < 0
                        ? body.add(Unpooled.EMPTY_BUFFER, true)
                        : body.add(Unpooled.copiedBuffer(buf, 0, n), false);
                if (flow == RequestBodyBuffer.Flow.TOO_LARGE) {
                    answer(response, 413); // never submitted: the body is complete before the request is
                    return;
                }
            } while (n >= 0 && flow != RequestBodyBuffer.Flow.REFUSED);
            if (flow == RequestBodyBuffer.Flow.REFUSED) {
                answer(response, 503); // the host refused (e.g. it is shutting down): answer, never hang
                return;
            }
            stream.writeResponse(response);
        } catch (IOException | RuntimeException e) {
            body.abandon();
            stream.discard();
            throw e instanceof IOException io ? io : new IOException(e);
        }
    }

    /**
     * {@code in.read(buf)}, or {@link #STALLED} when the read ended or failed because the body's deadline
     * aborted the stream's input. Request thread.
     */
    private static int read(InputStream in, byte[] buf, Stall stall) throws IOException {
        int n;
        try {
            n = in.read(buf);
        } catch (IOException e) {
            if (stall.end()) {
                return STALLED;
            }
            throw e;
        }
        return n < 0 && stall.end() ? STALLED : n;
    }

    private static void answer(HttpServerResponse response, int status) throws IOException {
        byte[] text = (status + "\n").getBytes(StandardCharsets.US_ASCII);
        response.setStatus(status);
        response.addHeader("content-type", "text/plain");
        response.addHeader("content-length", Integer.toString(text.length));
        OutputStream out = response.getOutputStream();
        out.write(text);
        out.close();
    }

    private ConnectionKey acquire(InetSocketAddress remote) {
        return keys.compute(remote, (a, k) -> {
            ConnectionKey key = k == null ? new ConnectionKey() : k;
            key.users++;
            return key;
        });
    }

    private void release(InetSocketAddress remote, ConnectionKey key) {
        keys.computeIfPresent(remote, (a, k) -> --k.users == 0 ? null : k);
    }

    /**
     * The body deadline's hand-over between the event loop it fires on and the request's thread: either the
     * deadline aborts the stream's input before the thread has stopped reading it, and the thread answers
     * 408, or the thread stopped first and the deadline does nothing. The lock makes the two exclusive, and
     * makes the abort (with the interrupt Kwik gives a waiting reader) complete before the thread goes on.
     */
    private static final class Stall {
        private final QuicStream quic;
        private boolean expired; // guarded by this
        private boolean ended; // guarded by this

        Stall(QuicStream quic) {
            this.quic = quic;
        }

        /** The body stalled for the timeout: stop reading the stream, waking its reader. Event loop. */
        synchronized void expire() {
            if (!ended) {
                expired = true;
                quic.abortReading(Http3ConnectionImpl.H3_NO_ERROR);
            }
        }

        /** The request thread stopped reading; true when that is the deadline's doing. */
        synchronized boolean end() {
            ended = true;
            return expired;
        }
    }

    /** Stands for one QUIC connection in the queue's fairness rule (compared by identity). */
    private static final class ConnectionKey {
        int users; // guarded by the map's compute
    }

    /** What the host delivers for one request, taken in order by the request's own thread. */
    private sealed interface Event permits Head, Body, Failure {
    }

    private record Head(int status, List<Map.Entry<String, String>> headers, boolean end) implements Event {
    }

    private record Body(ByteBuf chunk, boolean end) implements Event {
    }

    private record Failure(int status) implements Event {
    }

    /** The ResponseSink of one request: the host's calls become events for the request's thread. */
    private static final class Stream implements ResponseSink {
        final LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
        final ResponseBackpressure backpressure;
        final QuicStream quic;
        final SendRearm writes;
        volatile Exchange exchange;
        volatile boolean discarded;
        private boolean headWritten; // request thread

        Stream(ResponseBackpressure backpressure, QuicStream quic, SendRearm writes) {
            this.backpressure = backpressure;
            this.quic = quic;
            this.writes = writes;
        }

        /** The request was submitted with this sink. Request thread. */
        Exchange submitted(Exchange exchange) {
            this.exchange = exchange;
            return exchange;
        }

        @Override
        public void head(int status, List<Map.Entry<String, String>> headers, boolean endOfStream) {
            events.add(new Head(status, headers, endOfStream));
        }

        @Override
        public boolean body(ByteBuf chunk, boolean endOfStream) {
            if (discarded) {
                chunk.release();
                return true;
            }
            long now = backpressure.accepted(chunk.readableBytes());
            events.add(new Body(chunk, endOfStream));
            return backpressure.pause(now, endOfStream) == ResponseBackpressure.Pause.NONE;
        }

        @Override
        public void fail(int status, String reason, boolean headSent) {
            events.add(new Failure(status));
        }

        /**
         * Writes events until the response ends; reports T6 after the last flush. A response that fails
         * after its head was written is reset (H3_INTERNAL_ERROR, as h2 resets its stream): Flupke leaves a
         * stream whose handler threw as it is, and the client would wait for the rest until the idle
         * timeout. Request thread.
         */
        void writeResponse(HttpServerResponse response) throws IOException {
            try {
                writeEvents(response);
            } catch (IOException | RuntimeException e) {
                if (headWritten) {
                    quic.resetStream(Http3ConnectionImpl.H3_INTERNAL_ERROR);
                }
                throw e;
            }
        }

        private void writeEvents(HttpServerResponse response) throws IOException {
            OutputStream out = null;
            while (true) {
                Event event;
                try {
                    event = events.take();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while waiting for the response", e);
                }
                if (event instanceof Head h) {
                    response.setStatus(h.status());
                    for (Map.Entry<String, String> header : h.headers()) {
                        String name = header.getKey().toLowerCase(Locale.ROOT);
                        String value = header.getValue();
                        if (!HeaderFields.CONNECTION_SPECIFIC.contains(name)) {
                            response.addHeader(name, value); // never let an app send what HTTP/3 forbids
                        }
                    }
                    headWritten = true;
                    out = response.getOutputStream();
                    if (h.end()) {
                        break;
                    }
                } else if (event instanceof Body b) {
                    ByteBuf chunk = b.chunk();
                    int n = chunk.readableBytes();
                    try {
                        if (n > 0 && out != null) {
                            // One fresh array per write: Kwik keeps the array it is given until the bytes are
                            // sent, so a reused buffer (ByteBuf.readBytes(OutputStream) copies through a
                            // thread-local one) would lose data.
                            byte[] bytes = new byte[n];
                            chunk.readBytes(bytes);
                            writes.write(out, bytes);
                            out.flush(); // streaming is immediate: each chunk leaves as the app yields it
                        }
                    } finally {
                        chunk.release();
                    }
                    if (backpressure.written(n)) {
                        exchange.resumeResponse();
                    }
                    if (b.end()) {
                        break;
                    }
                } else if (event instanceof Failure f) {
                    if (headWritten) {
                        throw new IOException("the response failed after its head was sent");
                    }
                    answer(response, f.status());
                    return;
                }
            }
            if (out == null) {
                out = response.getOutputStream();
            }
            out.close();
            exchange.responseSent(System.nanoTime());
        }

        /**
         * The request failed on this side: the host forgets it, and what it delivered, or still sends, is
         * released.
         */
        void discard() {
            Exchange ex = exchange;
            if (ex != null) {
                ex.cancel();
            }
            discarded = true;
            Event event;
            while ((event = events.poll()) != null) {
                if (event instanceof Body b) {
                    b.chunk().release();
                }
            }
        }
    }
}
