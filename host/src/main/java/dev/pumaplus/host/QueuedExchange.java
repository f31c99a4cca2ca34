/*
 * One request from the moment a protocol bundle submits it until its response ends: waits in the
 * Dispatcher's FIFO (or is held behind its connection's waiting request), is dispatched to a WorkerLink, and
 * carries the request body that streams in meanwhile.
 */
package dev.pumaplus.host;

import dev.pumaplus.spi.Exchange;
import dev.pumaplus.spi.RequestHead;
import dev.pumaplus.spi.ResponseSink;
import io.netty.buffer.ByteBuf;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The host's side of an {@link Exchange}.
 *
 * <p>Threading: {@link #state}, {@link #link} assignment and the timestamps are guarded by the dispatcher's
 * lock. The request body ({@code pending*}, {@code bodyEnded}, {@code started}) is guarded by this object's
 * monitor, because it is written by the protocol's event loop and read by the link's event loop. Everything
 * else the link touches (response progress) is confined to the link's event loop.
 *
 * <p>Timing points (all {@link System#nanoTime()} ns): T1 and T2 come with the {@link #head}, T2b is read
 * at submit, T3 at dispatch (under the dispatcher's lock), T4, T5 and body read arrive in the RESPONSE_HEAD
 * (written on the link's event loop before {@link #status}, which is volatile and written last, so whoever
 * reads {@code status} first sees them), T6 in {@link #responseSent}.
 */
final class QueuedExchange implements Exchange {

    /** Bytes of request body held for the link before {@link #writeBody} asks the protocol to pause. */
    static final int HOLD_LIMIT = 1 << 20;

    enum State { WAITING, HELD, DISPATCHED, CANCELLED, DONE }

    final Dispatcher dispatcher;
    final Object connection;
    final long requestId;
    final ResponseSink sink;
    /** The parsed request: method, target, T1 and T2. */
    final RequestHead head;
    /**
     * T2b: {@link System#nanoTime()} at submit, when the request entered the queue; written by the submitting
     * thread before it takes the dispatcher's lock, read after dispatch (so it is visible there).
     */
    long runnableNanos;
    /** T3: {@link System#nanoTime()} when it was handed to a link; 0 before. Guarded by the dispatcher lock. */
    long dispatchedNanos;
    /** Guarded by the dispatcher lock. */
    State state;
    /** The link it runs on, set once at dispatch. */
    volatile WorkerLink link;
    /** The client went away: the rest of the response is discarded. */
    volatile boolean cancelled;
    /** The response ended or failed: body chunks written from now on are dropped. */
    volatile boolean finished;
    /** The app took the client connection (a hijack was handed to the protocol): no head is forwarded. */
    volatile boolean hijacked;
    /** The host failed the request (502/503, or an abort after the head): no service or total recorded. */
    volatile boolean failed;
    /** T4 from the RESPONSE_HEAD; 0 until it arrives. Written on the link's loop before {@link #status}. */
    long appCalledNanos;
    /** T5 from the RESPONSE_HEAD; 0 until it arrives. */
    long appReturnedNanos;
    /** Body-read ns from the RESPONSE_HEAD. */
    long bodyReadNanos;
    /** The status the client is sent (the worker's, or the host's failure status); 0 until known. */
    volatile int status;
    /** T6 has been reported (the protocol calls responseSent once; this guards against a second call). */
    private volatile boolean sent;

    private ByteBuf env;
    private final ArrayDeque<ByteBuf> pendingBody = new ArrayDeque<>(2);
    private long pendingBytes;
    private boolean bodyEnded;
    private boolean started;
    private boolean drainScheduled;
    private boolean resumeWanted;

    QueuedExchange(Dispatcher dispatcher, Object connection, long requestId, RequestHead head, ByteBuf env,
                   ByteBuf body, boolean bodyComplete, ResponseSink sink) {
        this.dispatcher = dispatcher;
        this.connection = connection;
        this.requestId = requestId;
        this.head = head;
        this.env = env;
        this.sink = sink;
        if (body.isReadable()) {
            pendingBody.add(body);
            pendingBytes = body.readableBytes();
        } else {
            body.release();
        }
        bodyEnded = bodyComplete;
    }

    @Override
    public boolean writeBody(ByteBuf chunk, boolean last) {
        boolean schedule = false;
        boolean accepted;
        WorkerLink target;
        synchronized (this) {
            if (bodyEnded || finished) {
                chunk.release();
                return true;
            }
            if (chunk.isReadable()) {
                pendingBody.add(chunk);
                pendingBytes += chunk.readableBytes();
            } else {
                chunk.release();
            }
            bodyEnded = last;
            target = link;
            if (started && !drainScheduled) {
                drainScheduled = true;
                schedule = true;
            }
            accepted = pendingBytes <= HOLD_LIMIT && (!started || target.channel.isWritable());
            if (!accepted && !last) {
                resumeWanted = true;
            }
        }
        if (schedule) {
            target.channel.eventLoop().execute(() -> target.sendBody(this));
        }
        return accepted || last;
    }

    /**
     * {@inheritDoc} Before dispatch there is nothing to resume; otherwise the link resumes on its event loop
     * if this exchange is still the one it runs.
     */
    @Override
    public void resumeResponse() {
        WorkerLink target = link;
        if (target != null && !finished && !cancelled) {
            target.resumeResponse(this);
        }
    }

    @Override
    public void cancel() {
        dispatcher.cancel(this);
    }

    /**
     * {@inheritDoc} Records total time T6 − T1 for a response the worker completed (not for one the host
     * failed, nor a cancelled one), then writes the {@code log_requests} line if that is switched on.
     */
    @Override
    public void responseSent(long flushedNanos) {
        if (sent) {
            return;
        }
        sent = true;
        int s = status; // volatile read first: T4, T5 and body read are visible after it
        if (s != 0 && !failed && !cancelled) {
            dispatcher.metrics().total.record(flushedNanos - head.firstByteNanos());
        }
        RequestLog log = dispatcher.requestLog();
        if (log != null && s != 0) {
            log.log(this, flushedNanos);
        }
    }

    /** Records the worker's RESPONSE_HEAD timing and status. Link event loop, before the sink hears of it. */
    void headReceived(int headStatus, long appCalled, long appReturned, long bodyRead) {
        appCalledNanos = appCalled;
        appReturnedNanos = appReturned;
        bodyReadNanos = bodyRead;
        status = headStatus;
        dispatcher.metrics().countStatus(headStatus);
        // Body wait ends when the worker has the whole body: T2b for a buffered body, plus the worker's
        // read of the rest for a body that streamed past 1 MiB.
        dispatcher.metrics().bodyWait.record(runnableNanos - head.headersParsedNanos() + bodyRead);
    }

    /**
     * Fails the request: marks it failed (no service or total is recorded), counts {@code failStatus}
     * when the client is answered with it (no head sent yet) and tells the sink. Any thread.
     */
    void fail(int failStatus, String reason, boolean headSent) {
        failed = true;
        if (!headSent) {
            status = failStatus;
            dispatcher.metrics().countStatus(failStatus);
        }
        sink.fail(failStatus, reason, headSent);
    }

    /**
     * The host answers the request itself (a shed request): a complete response with {@code headers} and a
     * text body, no worker involved. Counted by status; like a failure, no service or total is recorded.
     * Any thread (the sink hops to its own loop).
     */
    void answer(int answerStatus, java.util.List<java.util.Map.Entry<String, String>> headers, String text) {
        failed = true;
        status = answerStatus;
        dispatcher.metrics().countStatus(answerStatus);
        HostAnswer.write(sink, answerStatus, headers, text);
    }

    /** The request body still to send, taken by the link; marks the exchange started. Link event loop. */
    synchronized BodyChunks takeBody() {
        started = true;
        drainScheduled = false;
        List<ByteBuf> chunks = new ArrayList<>(pendingBody);
        pendingBody.clear();
        pendingBytes = 0;
        return new BodyChunks(chunks, bodyEnded);
    }

    /** The env payload, once; null afterwards. */
    synchronized ByteBuf takeEnv() {
        ByteBuf e = env;
        env = null;
        return e;
    }

    /**
     * After dispatch, the client went away before its body ended: drop what is held and end the body
     * early so the link can finish the exchange. Returns true if a drain must be scheduled.
     */
    synchronized boolean truncateBody() {
        releasePending();
        if (bodyEnded) {
            return false;
        }
        bodyEnded = true;
        if (started && !drainScheduled) {
            drainScheduled = true;
            return true;
        }
        return false;
    }

    /** Whether the protocol paused for us and may resume now. Clears the wish. Link event loop. */
    synchronized boolean takeResume(boolean writable) {
        if (resumeWanted && writable && pendingBytes <= HOLD_LIMIT) {
            resumeWanted = false;
            return true;
        }
        return false;
    }

    /** Releases everything still held (never dispatched, or the link died). Idempotent. */
    synchronized void discard() {
        finished = true;
        if (env != null) {
            env.release();
            env = null;
        }
        releasePending();
        bodyEnded = true;
    }

    private void releasePending() {
        for (ByteBuf b : pendingBody) {
            b.release();
        }
        pendingBody.clear();
        pendingBytes = 0;
    }

    /** Body taken for sending: chunks in order, and whether the body ends with them. */
    record BodyChunks(List<ByteBuf> chunks, boolean end) {
    }
}
