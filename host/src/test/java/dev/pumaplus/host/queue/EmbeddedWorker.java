/*
 * A worker thread's link for dispatcher tests: a real WorkerLink on a Netty EmbeddedChannel, so the
 * frames the host would put on the wire can be read back and responses injected, without sockets.
 */
package dev.pumaplus.host.queue;

import dev.pumaplus.wire.Frame;
import dev.pumaplus.wire.FrameType;
import dev.pumaplus.wire.Hello;
import dev.pumaplus.wire.Protocol;
import dev.pumaplus.wire.Request;
import dev.pumaplus.wire.ResponseHead;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Single-threaded: the test thread drives the embedded event loop. */
public final class EmbeddedWorker {

    private static long ids;
    private static final List<EmbeddedWorker> CREATED = new ArrayList<>();

    public final EmbeddedChannel channel;
    public final WorkerLink link;

    /** A link of worker process {@code pid} that joins {@code queue}'s dispatcher (its HELLO was read). */
    public EmbeddedWorker(QueueFixture queue, long pid, long workerIndex) {
        this(queue, pid, workerIndex, 1);
    }

    /** The same, for a worker of shepherd generation {@code generation}. */
    public EmbeddedWorker(QueueFixture queue, long pid, long workerIndex, long generation) {
        channel = new EmbeddedChannel();
        link = new WorkerLink(++ids, channel, new Hello(Protocol.VERSION, Hello.ROLE_WORKER, pid, generation,
                workerIndex, ids),
                queue.dispatcher, queue.reporting, new Hijacks(), queue.webSockets);
        channel.pipeline().addLast(link); // joins the queue, as after a HELLO
        channel.runPendingTasks();
        CREATED.add(this);
    }

    /**
     * End of a test: answers what is still queued (503) so its buffers are released, closes every worker
     * created since the last call and releases the frames nobody read, so leak detection reports only real
     * leaks.
     */
    static void releaseAll(Dispatcher dispatcher) {
        dispatcher.drain(0, Runnable::run);
        for (EmbeddedWorker worker : CREATED) {
            worker.channel.runPendingTasks();
            worker.channel.finishAndReleaseAll();
        }
        CREATED.clear();
    }

    /** Releases the frames sent so far. */
    public void discardSent() {
        sent().forEach(Frame::release);
    }

    /** Frames written to the worker so far (runs pending tasks first); the caller releases them. */
    public List<Frame> sent() {
        channel.runPendingTasks();
        List<Frame> frames = new ArrayList<>();
        for (Object o; (o = channel.readOutbound()) != null; ) {
            frames.add((Frame) o);
        }
        return frames;
    }

    /** The value of env pair {@code name} in the REQUEST among {@code frames}, or null. */
    public static String env(List<Frame> frames, String name) {
        for (Frame f : frames) {
            if (f.type() == FrameType.REQUEST) {
                for (Map.Entry<String, String> pair : Request.decode(f.payload()).env()) {
                    if (pair.getKey().equals(name)) {
                        return pair.getValue();
                    }
                }
            }
        }
        return null;
    }

    /** The PATH_INFO of the one request sent since the last call, or null when none was sent. */
    String takeRequestPath() {
        List<Frame> frames = sent();
        String path = env(frames, "PATH_INFO");
        frames.forEach(Frame::release);
        return path;
    }

    /** Responds 200 with {@code body}, ending the response. */
    public void respond(String body) {
        respond(body, -1);
    }

    /** Responds 200 with {@code body} and a head reporting {@code gvlWaitNanos} of GVL wait (-1: none). */
    public void respond(String body, long gvlWaitNanos) {
        channel.writeInbound(new ResponseHead(200, 0, 0, 0, List.of(Map.entry("content-type", "text/plain")),
                gvlWaitNanos).toFrame(ByteBufAllocator.DEFAULT, false));
        channel.writeInbound(Frame.of(FrameType.RESPONSE_BODY, true,
                Unpooled.copiedBuffer(body, StandardCharsets.ISO_8859_1)));
        channel.runPendingTasks();
    }
}
