/*
 * The client side of an HTTP/1.1 connection under test on an EmbeddedChannel: bytes sent in, and what the
 * pipeline wrote back, for the tests that drive H1RequestDecoder and H1ConnectionHandler without a socket.
 */
package dev.pumaplus.protocol.h1;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;

final class ClientBytes {
    private ClientBytes() {
    }

    /** Sends {@code bytes} as one read and runs what they made the pipeline schedule. */
    static void send(EmbeddedChannel channel, byte[] bytes) {
        channel.writeInbound(Unpooled.wrappedBuffer(bytes));
        channel.runPendingTasks();
    }

    /** Sends {@code text} (ISO-8859-1) as one read. */
    static void send(EmbeddedChannel channel, String text) {
        send(channel, text.getBytes(StandardCharsets.ISO_8859_1));
    }

    /** Everything written to the client since the last call, as ISO-8859-1. */
    static String output(EmbeddedChannel channel) {
        channel.runPendingTasks();
        StringBuilder sb = new StringBuilder();
        ByteBuf buf;
        while ((buf = channel.readOutbound()) != null) {
            sb.append(buf.toString(StandardCharsets.ISO_8859_1));
            buf.release();
        }
        return sb.toString();
    }
}
