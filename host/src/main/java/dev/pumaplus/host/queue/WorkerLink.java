/*
 * One worker thread's connection to the host, after its HELLO: the dispatch end of the request path. It
 * writes a dispatched request (REQUEST, BODY frames) to the worker and forwards the worker's response frames
 * to the protocol bundle's ResponseSink; it reports to the queue only through its LinkListener.
 */
package dev.pumaplus.host.queue;

import dev.pumaplus.wire.Frame;
import dev.pumaplus.wire.FrameType;
import dev.pumaplus.wire.Hello;
import dev.pumaplus.wire.PairList;
import dev.pumaplus.wire.Protocol;
import dev.pumaplus.wire.ProtocolException;
import dev.pumaplus.wire.Request;
import dev.pumaplus.wire.ResponseFile;
import dev.pumaplus.wire.ResponseHead;
import dev.pumaplus.wire.WebSocketCommand;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;

/**
 * The pipeline handler and state of one worker link (docs/PROTOCOL.md, "State machine": IDLE ⇄ BUSY).
 * The link is BUSY from dispatch until the host has sent its request END_STREAM <em>and</em> the worker its
 * response END_STREAM or RESPONSE_ABORT; then it tells its {@link LinkListener} (the {@link Dispatcher}), which
 * makes it IDLE again or hands it the oldest waiting request, which the link starts at once.
 *
 * <p>The worker is never paced by the client, in either direction. The request body is complete before
 * dispatch: in memory it goes down in one go, from a spool file in BODY frames of at most MAX_PAYLOAD as
 * fast as the worker's socket takes them (the next when the channel turns writable). The response is read
 * at the worker's speed: every body piece and file region goes through the exchange's {@link ResponseSpool},
 * which delivers it to the sink at once or holds it while the sink is paused; so the link is free when the
 * worker has written its response, and the spool goes on delivering it at the client's speed (on this
 * link's event loop, at the sink's {@link QueuedExchange#resumeResponse()}).
 *
 * <p>Errors: a frame not allowed in the current state is a protocol error (GOAWAY(1), close). When the
 * link closes while BUSY with a request the worker has (its REQUEST frame was written), the exchange's sink
 * gets {@code fail(502, ..., headSent)} at once; nothing else is affected. A request the worker provably
 * never had (the link was closed when it came to it, or its REQUEST frame's write failed) is reported as not
 * delivered to the {@link LinkListener}, which puts it back at the head of the queue, for another link, a bounded
 * number of times; the request's parts stay in its {@link PendingBody} until the worker has the REQUEST
 * frame, so another link can send them whole.
 *
 * <p>Timing: the REQUEST frame carries T2, T2b and T3 in the 24 bytes reserved at the head of the env
 * payload encoded at submit, written there at dispatch (no copy). Queue time T3 − T2b is recorded once the
 * REQUEST frame is written, with the T3 of the dispatch that delivered it. From the RESPONSE_HEAD the link
 * takes T4, T5 and body-read ns; when the worker ends its response normally (END_STREAM, no abort, client
 * still there) it records service time T5 − T4 − body read. With {@code server_timing} on, each forwarded head gets
 * {@code Server-Timing: queue;dur=<T3 − T2b in ms>, app;dur=<service, T5 − T4 − body read, in ms>} (3 decimals).
 *
 * <p>Version 3 frames: EARLY_HINTS go to the sink's {@code earlyHints} before the head; HIJACK and HIJACK_HEAD
 * announce a hijack to {@link Hijacks} (after a full hijack the worker's closing RESPONSE_HEAD is recorded
 * and never forwarded); RESPONSE_FILE opens the named file and hands it to the spool, which gives the sink
 * a file region, or reads it into {@code body} pieces for a sink that takes no files.
 * Version 4: WS_COMMAND frames, allowed while a response runs, go to {@link WebSockets} in order.
 *
 * <p>Calls go one way: the exchange and the queue call this link; the link reads the exchange's parts (its
 * {@link PendingBody}, its {@link ResponseRecord}) and reports events to the sink and to its listener.
 *
 * <p>Threading: the methods called from other threads ({@link #start}, {@link #cancel},
 * {@link #resumeResponse}, {@link #close}) hand their work to {@link #channel}'s event loop; everything
 * else, the request and response progress included, is confined to that loop.
 */
public final class WorkerLink extends ChannelInboundHandlerAdapter {

    private static final System.Logger LOG = System.getLogger(WorkerLink.class.getName());

    final long id;
    public final Channel channel;
    final Hello hello;
    private final LinkListener listener;
    private final RequestReporting reporting;
    private final Hijacks hijacks;
    private final WebSockets webSockets;
    /** The listener's token for this link, from {@link LinkListener#ready}. Event loop. */
    private Object token;

    /** What a request cut short by the link closing is answered with. */
    private volatile int failStatus = 502;
    private volatile String failReason = "worker link closed";

    // event loop only
    private QueuedExchange current;
    private boolean requestEndSent;
    /** The current request's REQUEST frame write: a failed one means the worker never had the request. */
    private ChannelFuture requestWrite;
    private boolean headForwarded;
    private boolean responseEnded;
    /** Sends the current request's body down in BODY frames (a spooled one as the socket takes them). */
    private final RequestBodyWriter bodyWriter;
    /** The current request's full hijack was announced (HIJACK), and its offer, until claimed or withdrawn. */
    private Hijacks.Offer hijackOffer;

    /**
     * @param listener  the queue this link serves
     * @param reporting where response timing goes, and whether heads get a Server-Timing header
     * @param hijacks   where HIJACK / HIJACK_HEAD announcements meet the worker's hijack connections
     * @param webSockets where WS_COMMAND frames are applied (the held WebSocket connections)
     */
    public WorkerLink(long id, Channel channel, Hello hello, LinkListener listener, RequestReporting reporting,
               Hijacks hijacks, WebSockets webSockets) {
        this.id = id;
        this.channel = channel;
        this.hello = hello;
        this.listener = listener;
        this.reporting = reporting;
        this.hijacks = hijacks;
        this.webSockets = webSockets;
        this.bodyWriter = new RequestBodyWriter(channel);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        token = listener.ready(this);
    }

    /** Sends {@code ex} to the worker; called by the queue after assigning it. Any thread. */
    void start(QueuedExchange ex) {
        channel.eventLoop().execute(() -> run(ex));
    }

    /** Closes the link; a running request is answered with {@code status} (e.g. 503 on shutdown). */
    void close(int status, String reason) {
        failStatus = status;
        failReason = reason;
        channel.close();
    }

    /** Closes the link, which runs nothing and will be given nothing more (it is draining). */
    void retire() {
        channel.close();
    }

    private void run(QueuedExchange ex) {
        if (ex.ticket.link() != this || !channel.isActive()) {
            // This link closed before it came to the request: the request never reached a worker, and the
            // queue has put it back (or channelInactive, still to run here, has it put back).
            return;
        }
        ByteBuf env = ex.body.env();
        if (env == null) {
            return; // failed or discarded before it reached the loop
        }
        current = ex;
        requestEndSent = false;
        headForwarded = false;
        responseEnded = false;
        hijackOffer = null;
        ByteBuf body = ex.body.body();
        FileChannel file = ex.body.file();
        boolean endNow = body == null && file == null;
        requestWrite = channel.write(Request.frame(env, ex.head.headersParsedNanos(), ex.runnableNanos,
                ex.dispatchedNanos(), endNow));
        requestWrite.addListener(written -> {
            if (written.isSuccess()) {
                requestDelivered(ex);
            }
        });
        requestEndSent = endNow;
        if (body != null) {
            bodyWriter.writeFrames(body);
            requestEndSent = true;
        } else if (file != null) {
            sendBodyFile(file);
        }
        channel.flush();
    }

    /**
     * The worker has the request's REQUEST frame: the request will not be sent again, so its queue time ends
     * at this T3 (the dispatch that delivered it), and its parts go once its body is written too.
     */
    private void requestDelivered(QueuedExchange ex) {
        reporting.queueTime(ex);
        releaseSentBody();
    }

    /** Discards the current request's parts once the REQUEST frame was delivered and the body written. */
    private void releaseSentBody() {
        if (current != null && requestEndSent && requestWrite.isSuccess()) {
            current.body.discard();
        }
    }

    /** Starts sending a spooled body; the rest follows as the worker's socket turns writable. */
    private void sendBodyFile(FileChannel file) {
        try {
            bodyWriter.start(file);
        } catch (IOException e) {
            unreadableBodyFile(e);
            return;
        }
        pumpBodyFile();
    }

    /**
     * Writes the spooled body's next BODY frames while the worker's socket takes them. A spool file that
     * cannot be read closes the link (the client gets 502 from channelInactive): the worker must not run the
     * app on a body that is not the client's.
     */
    private void pumpBodyFile() {
        try {
            if (bodyWriter.pump()) {
                endBodyFile();
            }
        } catch (IOException e) {
            unreadableBodyFile(e);
        }
    }

    private void unreadableBodyFile(IOException e) {
        failReason = "the request's spooled body could not be read: " + e;
        endBodyFile();
        channel.flush(); // the REQUEST goes out: the request is answered, not sent again to read the same file
        channel.close();
    }

    private void endBodyFile() {
        bodyWriter.stop();
        requestEndSent = true;
        releaseSentBody();
    }

    /**
     * The client went away after dispatch: the response's held parts are dropped, and the worker's remaining
     * frames are read and discarded, so the link becomes idle as soon as the worker has answered. A spooled
     * body still going down goes on to its end: it is complete, takes the worker's speed only, and an app
     * given a cut body could store it as if it were whole. Any thread.
     */
    void cancel(QueuedExchange ex) {
        onLoop(ex.spool::discard);
    }

    /**
     * The sink of {@code ex} can take more response body. Any thread; always acts in a task on the event
     * loop, even when called there, so it runs after the {@code body} call whose false it answers has been
     * acted on (the sink may resume before that call returns). Also after the link has moved on to another
     * request: the spool of a response the worker finished still delivers on this loop.
     */
    void resumeResponse(QueuedExchange ex) {
        onLoop(ex.spool::resume);
    }

    private void onLoop(Runnable task) {
        try {
            channel.eventLoop().execute(task);
        } catch (RejectedExecutionException e) {
            // the host's loops are gone (shutdown): so is the link, and nothing is left to drain or resume
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        handle((Frame) msg);
    }

    /** Acts on one frame from the worker and releases it. Event loop. */
    private void handle(Frame frame) {
        try {
            switch (frame.type()) {
                case FrameType.RESPONSE_HEAD -> onHead(frame);
                case FrameType.RESPONSE_BODY -> onBody(frame);
                case FrameType.RESPONSE_ABORT -> onAbort(frame);
                case FrameType.EARLY_HINTS -> onEarlyHints(frame);
                case FrameType.HIJACK -> onHijack();
                case FrameType.HIJACK_HEAD -> onHijackHead(frame);
                case FrameType.RESPONSE_FILE -> onFile(frame);
                case FrameType.WS_COMMAND -> onWebSocketCommand(frame);
                case FrameType.GOAWAY -> listener.draining(token);
                default -> throw new ProtocolException(FrameType.name(frame.type()) + " not allowed on a worker link");
            }
        } finally {
            frame.release();
        }
    }

    /** Records the head's timing (status, T4, T5, body read; body wait T2b − T2 + body read). */
    private void headArrived(QueuedExchange ex, ResponseHead head) {
        ex.response.head(head);
        reporting.bodyWait(ex, head);
    }

    private void onHead(Frame frame) {
        if (current == null || headForwarded || responseEnded) {
            throw new ProtocolException("RESPONSE_HEAD while no response head is expected");
        }
        ResponseHead head = ResponseHead.decode(frame);
        headForwarded = true;
        responseEnded = frame.endStream();
        QueuedExchange ex = current;
        ResponseRecord response = ex.response;
        headArrived(ex, head);
        if (hijackOffer != null && !response.hijacked()) {
            // The app asked for the connection but never got it (its dial failed) and answered normally.
            hijacks.withdraw(ex.requestId, hijackOffer);
        }
        hijackOffer = null;
        if (response.hijacked()) {
            // A full hijack's closing head: timing for the metrics; the client's bytes are the app's now. (A
            // body follows only when the protocol refused the hijack and the app answered normally; the
            // client's connection is closed then, and the body is drained and dropped.)
        } else if (!response.cancelled()) {
            List<Map.Entry<String, String>> headers = ResponseFields.clientSafe(head.headers());
            if (reporting.serverTiming()) {
                headers.add(Map.entry("Server-Timing", ServerTimingHeader.value(ex.dispatchedNanos() - ex.runnableNanos,
                        response.serviceNanos())));
            }
            response.sink().head(head.status(), headers, responseEnded);
        }
        if (responseEnded) {
            responseDone(ex);
        }
    }

    /** Headers for a 103 Early Hints, before the head. */
    private void onEarlyHints(Frame frame) {
        if (current == null || headForwarded || responseEnded) {
            throw new ProtocolException("EARLY_HINTS while no response head is expected");
        }
        ResponseRecord response = current.response;
        if (!response.cancelled() && hijackOffer == null) {
            response.sink().earlyHints(ResponseFields.clientSafe(PairList.decode(frame.payload(), 0)));
        }
    }

    /**
     * Full hijack announced: the worker's hijack connection follows (and is claimed before the app gets its
     * IO, so before the worker's closing RESPONSE_HEAD).
     */
    private void onHijack() {
        if (current == null || headForwarded || responseEnded || hijackOffer != null) {
            throw new ProtocolException("HIJACK while no response head is expected");
        }
        hijackOffer = new Hijacks.Offer(current, this, 0, List.of(), Protocol.VERSION);
        hijacks.offer(current.requestId, hijackOffer);
    }

    /** Partial hijack: the head to write before the raw bytes; it ends the worker's response on this link. */
    private void onHijackHead(Frame frame) {
        if (current == null || headForwarded || responseEnded || hijackOffer != null) {
            throw new ProtocolException("HIJACK_HEAD while no response head is expected");
        }
        ResponseHead head = ResponseHead.decode(frame);
        headForwarded = true;
        responseEnded = true;
        QueuedExchange ex = current;
        headArrived(ex, head);
        if (!ex.response.cancelled()) {
            hijacks.offer(ex.requestId,
                    new Hijacks.Offer(ex, this, head.status(), ResponseFields.clientSafe(head.headers()),
                            Protocol.VERSION));
        }
        responseDone(ex);
    }

    /**
     * A file body (RESPONSE_FILE): the exchange's spool opens it and sends it as a file region when the sink
     * takes files, else reads it in pieces (a file it cannot open fails the response).
     */
    private void onFile(Frame frame) {
        if (current == null || !headForwarded || responseEnded) {
            throw new ProtocolException("RESPONSE_FILE before RESPONSE_HEAD or after END_STREAM");
        }
        ResponseFile file = ResponseFile.decode(frame.payload());
        responseEnded = frame.endStream();
        QueuedExchange ex = current;
        ResponseRecord response = ex.response;
        if (!response.cancelled() && !response.failed() && !response.hijacked()) {
            ex.spool.file(file, responseEnded);
        }
        if (responseEnded) {
            responseDone(ex);
        }
    }

    /** A command for the held WebSocket connections (version 4), allowed while the worker's response runs. */
    private void onWebSocketCommand(Frame frame) {
        if (current == null || responseEnded) {
            throw new ProtocolException("WS_COMMAND while no request is running");
        }
        webSockets.apply(WebSocketCommand.decode(frame.payload()));
    }

    private void onBody(Frame frame) {
        if (current == null || !headForwarded || responseEnded) {
            throw new ProtocolException("RESPONSE_BODY before RESPONSE_HEAD or after END_STREAM");
        }
        responseEnded = frame.endStream();
        QueuedExchange ex = current;
        ResponseRecord response = ex.response;
        if (!response.cancelled() && !response.hijacked()) {
            ex.spool.body(frame.payload().retain(), responseEnded);
        }
        if (responseEnded) {
            responseDone(ex);
        }
    }

    private void onAbort(Frame frame) {
        if (current == null || responseEnded) {
            throw new ProtocolException("RESPONSE_ABORT while no response is running");
        }
        responseEnded = true;
        QueuedExchange ex = current;
        if (!ex.response.cancelled()) {
            ex.spool.discard();
            ex.response.fail(502, "worker aborted: " + frame.payload().toString(StandardCharsets.UTF_8), headForwarded);
        }
        responseDone(ex);
    }

    private void responseDone(QueuedExchange ex) {
        ResponseRecord response = ex.response;
        response.finish();
        if (!response.failed() && !response.cancelled()) {
            reporting.serviceTime(response);
        }
        if (!requestEndSent) {
            // The worker answered before reading the whole body; it discards BODY frames up to END_STREAM,
            // so end the body now instead of sending the rest of an upload nobody reads.
            endBodyFile();
            channel.writeAndFlush(Frame.empty(FrameType.BODY, true));
        }
        finish();
    }

    /** Both END_STREAMs passed: the link is free; the queue may hand it the next request at once. */
    private void finish() {
        QueuedExchange ex = current;
        current = null;
        ex.response.finish();
        ex.body.discard();
        ResponseHead head = ex.response.workerHead();
        QueuedExchange next = listener.finished(token, head == null ? -1 : head.gvlWaitNanos());
        if (next != null) {
            run(next);
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (bodyWriter.active() && channel.isWritable()) {
            pumpBodyFile();
            channel.flush();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        bodyWriter.stop(); // the exchange's PendingBody holds the file and closes it
        // Closing fails the writes still pending before this runs, so a REQUEST write not failed by now was
        // delivered (or could have been: it is answered, never sent twice).
        QueuedExchange delivered = current != null && requestWrite.cause() == null ? current : null;
        QueuedExchange ex = token == null ? null : listener.closed(token, delivered);
        if (ex != null) {
            ResponseRecord response = ex.response;
            boolean started = ex == current;
            boolean responseRunning = !started || !responseEnded;
            if (!response.cancelled() && !response.finished() && responseRunning) {
                ex.spool.discard();
                response.fail(failStatus, failReason, started && headForwarded);
            }
            response.finish();
            ex.body.discard();
        }
        current = null;
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof DecoderException || cause instanceof ProtocolException) {
            failReason = "worker link protocol error: " + cause.getMessage();
            LinkProtocolError.answer(channel, cause.getMessage());
        } else {
            if (!(cause instanceof IOException)) {
                // not the worker's fault (e.g. a sink threw): say so, since closing costs a slot
                LOG.log(System.Logger.Level.ERROR, this + " closed after an internal error", cause);
            }
            channel.close();
        }
    }

    @Override
    public String toString() {
        return "WorkerLink(" + id + ", pid " + hello.pid() + ", worker " + hello.workerIndex() + ", thread "
                + hello.threadIndex() + ")";
    }
}
