/*
 * The request body's way down a worker link (dispatch → worker): BODY frames of at most MAX_PAYLOAD, from
 * memory in one go or from the spool file as fast as the worker's socket takes them. Never paced by the
 * client: the body is complete before dispatch.
 */
package dev.pumaplus.host.queue;

import dev.pumaplus.wire.Frame;
import dev.pumaplus.wire.FrameType;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import java.io.IOException;
import java.nio.channels.FileChannel;

/**
 * One per {@link WorkerLink}, for the request it runs. The link decides what ends a body (END_STREAM sent,
 * an unreadable file) and when its parts are released; this class only writes frames. The spool file is
 * the exchange's ({@link PendingBody} closes it), never closed here.
 *
 * <p>Threading: the link's event loop only.
 */
final class RequestBodyWriter {

    private final Channel channel;
    /** The spooled body while it goes down; null otherwise. */
    private FileChannel file;
    private long position;
    private long end;

    RequestBodyWriter(Channel channel) {
        this.channel = channel;
    }

    /** Writes an in-memory body as BODY frames of at most MAX_PAYLOAD, the last with END_STREAM. */
    void writeFrames(ByteBuf body) {
        while (body.readableBytes() > Frame.MAX_PAYLOAD) {
            channel.write(Frame.of(FrameType.BODY, false, body.readRetainedSlice(Frame.MAX_PAYLOAD)));
        }
        channel.write(Frame.of(FrameType.BODY, true, body));
    }

    /**
     * Begins a spooled body; {@link #pump} writes it.
     *
     * @throws IOException when the file's size cannot be read (the writer is active until {@link #stop})
     */
    void start(FileChannel spooled) throws IOException {
        file = spooled;
        position = 0;
        end = spooled.size();
    }

    /** Whether a spooled body is still going down. */
    boolean active() {
        return file != null;
    }

    /**
     * Writes the spooled body's next BODY frames while the channel is writable; returns true once the last
     * one (with END_STREAM) is written, and the writer is inactive from then on.
     *
     * @throws IOException when the file cannot be read, or ends early
     */
    boolean pump() throws IOException {
        while (file != null && channel.isWritable()) {
            int size = (int) Math.min(Frame.MAX_PAYLOAD, end - position);
            ByteBuf piece = channel.alloc().buffer(size);
            try {
                for (int done = 0; done < size; ) {
                    int n = piece.writeBytes(file, position + done, size - done);
                    if (n <= 0) {
                        throw new IOException("the spooled body ended " + (size - done) + " bytes early");
                    }
                    done += n;
                }
            } catch (IOException | RuntimeException e) {
                piece.release();
                throw e;
            }
            position += size;
            boolean last = position == end;
            channel.write(Frame.of(FrameType.BODY, last, piece));
            if (last) {
                file = null;
                return true;
            }
        }
        return false;
    }

    /** Stops sending (the body ended, failed, or the link closed). */
    void stop() {
        file = null;
    }
}
