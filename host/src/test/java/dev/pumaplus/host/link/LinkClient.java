/*
 * A peer on the worker link for tests: a blocking JDK unix socket client that speaks frames the way a Ruby
 * worker thread or the shepherd does, encoded and decoded by the production codec.
 */
package dev.pumaplus.host.link;

import dev.pumaplus.wire.Frame;
import dev.pumaplus.wire.FrameDecoder;
import dev.pumaplus.wire.FrameEncoder;
import dev.pumaplus.wire.Hello;
import dev.pumaplus.wire.Protocol;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** One connection; not thread-safe. {@link #read} returns null at end of stream. */
final class LinkClient implements AutoCloseable {

    private final SocketChannel socket;
    private final ByteBuf inbound = Unpooled.buffer();

    LinkClient(Path path) throws IOException {
        socket = SocketChannel.open(StandardProtocolFamily.UNIX);
        socket.connect(UnixDomainSocketAddress.of(path));
    }

    static LinkClient worker(Path path, long pid, long workerIndex, long threadIndex) throws IOException {
        LinkClient c = new LinkClient(path);
        c.write(new Hello(Protocol.VERSION, Hello.ROLE_WORKER, pid, 1, workerIndex, threadIndex).toFrame(ByteBufAllocator.DEFAULT));
        return c;
    }

    void write(Frame frame) throws IOException {
        writeAll(frame);
    }

    /** Writes {@code frames} with one socket write, so the host reads them in one go. */
    void writeAll(Frame... frames) throws IOException {
        ByteBuf out = Unpooled.buffer();
        for (Frame frame : frames) {
            FrameEncoder.writeFrame(frame, out);
            frame.release();
        }
        while (out.isReadable()) {
            out.readerIndex(out.readerIndex() + socket.write(out.nioBuffer()));
        }
        out.release();
    }

    /** The next frame, blocking; null when the host closed the link. */
    Frame read() throws IOException {
        while (true) {
            Frame frame = FrameDecoder.decodeOne(inbound);
            if (frame != null) {
                Frame copy = frame.replace(frame.content().copy()); // the slice would move with discardReadBytes
                frame.release();
                inbound.discardReadBytes();
                return copy;
            }
            ByteBuffer chunk = ByteBuffer.allocate(64 * 1024);
            int n = socket.read(chunk);
            if (n < 0) {
                return null;
            }
            chunk.flip();
            inbound.writeBytes(chunk);
        }
    }

    /** The next {@code n} raw bytes as ISO-8859-1 (a hijack connection after WELCOME), blocking; fewer at end of stream. */
    String readRaw(int n) throws IOException {
        while (inbound.readableBytes() < n) {
            ByteBuffer chunk = ByteBuffer.allocate(64 * 1024);
            if (socket.read(chunk) < 0) {
                break;
            }
            chunk.flip();
            inbound.writeBytes(chunk);
        }
        return inbound.readCharSequence(Math.min(n, inbound.readableBytes()), StandardCharsets.ISO_8859_1).toString();
    }

    void closeOutput() throws IOException {
        socket.shutdownOutput();
    }

    @Override
    public void close() throws IOException {
        socket.close();
        if (inbound.refCnt() > 0) {
            inbound.release();
        }
    }
}
