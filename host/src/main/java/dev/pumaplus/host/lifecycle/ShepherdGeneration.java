/*
 * One generation of the app: a Ruby shepherd process Generations spawned, its link and its CONFIG. The host
 * outlives generations (docs/ARCHITECTURE.md, "Lifecycle"): a hot restart or config reload spawns the next
 * one while the current one serves, and retires the old one once the new one's workers have dialled in.
 */
package dev.pumaplus.host.lifecycle;

import dev.pumaplus.wire.Frame;
import dev.pumaplus.wire.Goaway;
import io.netty.channel.Channel;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Generation numbers start at 1 and go into the shepherd's environment as {@code PUMA_PLUS_GENERATION}, from
 * where every HELLO of the shepherd and its workers carries it; Generations routes CONFIG and counts live
 * slots by it. Threading: {@link #configured} is called on a link's event loop, everything else on the
 * lifecycle and launcher threads; the fields they share are volatile or futures.
 */
public final class ShepherdGeneration {

    final int number;
    public final Process process;
    /** The CONFIG JSON text, completed when the shepherd sends it. */
    public final CompletableFuture<String> config = new CompletableFuture<>();
    private volatile Channel link;
    private volatile ShepherdConfig settings;

    private ShepherdGeneration(int number, Process process) {
        this.number = number;
        this.process = process;
    }

    /** Starts generation {@code number}'s shepherd with {@code command}. */
    static ShepherdGeneration spawn(int number, ShepherdCommand command) throws IOException {
        return new ShepherdGeneration(number, command.start(number));
    }

    /** The shepherd's link delivered CONFIG. Called on the link's event loop. */
    void configured(Channel channel, String json) {
        this.link = channel;
        config.complete(json);
    }

    public void settings(ShepherdConfig parsed) {
        this.settings = parsed;
    }

    /** The parsed CONFIG, or null before it arrived. */
    public ShepherdConfig settings() {
        return settings;
    }

    /** Sends {@code frame} on the shepherd link (a no-op, releasing it, when the link is gone). */
    boolean send(Frame frame) {
        Channel ch = link;
        if (ch == null || !ch.isActive()) {
            frame.release();
            return false;
        }
        ch.writeAndFlush(frame);
        return true;
    }

    /** Tells the shepherd to stop its workers (they drain) and exit: GOAWAY(0). */
    void retire(String reason) {
        Channel ch = link;
        if (ch != null && ch.isActive()) {
            send(new Goaway(Goaway.CODE_NORMAL, reason).toFrame(ch.alloc()));
        } else if (process.isAlive()) {
            process.destroy(); // no link (it never configured): SIGTERM makes the shepherd stop its workers
        }
    }

    /**
     * Waits up to {@code millis} for the shepherd to exit; then kills it and whatever it forked.
     * Returns true if it exited by itself.
     */
    boolean awaitExit(long millis) {
        try {
            process.onExit().get(millis, TimeUnit.MILLISECONDS);
            return true;
        } catch (Exception e) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.onExit().completeOnTimeout(null, 2, TimeUnit.SECONDS).join();
            return false;
        }
    }
}
