/*
 * The fixture of the HTTP/1.1 connection's claims (H1ConnectionHandlerTest, H1ConnectionTimeoutsTest,
 * ReadAheadLimitTest, ResponseOutputTest): a decoder and an H1ConnectionHandler on an EmbeddedChannel
 * whose time is frozen and moved by the tests, a RecordingQueue behind them, and the client's bytes.
 */
package dev.pumaplus.protocol.h1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;

abstract class H1ConnectionFixture {

    static final int MIB = 1024 * 1024;
    static final int MEMORY = dev.pumaplus.spi.RequestBodyBuffer.MEMORY_BYTES;
    /** The first_data_timeout of {@link #open()}: a body stalled this long is answered 408. */
    static final int FIRST_DATA_TIMEOUT_SECS = 30;

    RecordingQueue queue;
    EmbeddedChannel channel;

    void open(H1Config config) {
        open(config, false);
    }

    /** {@code h2cListener}: cleartext with protocol-h2 loaded (see {@link H1HeadValidator#H1HeadValidator}). */
    void open(H1Config config, boolean h2cListener) {
        queue = new RecordingQueue();
        H1RequestDecoder decoder = new H1RequestDecoder(h2cListener);
        channel = new EmbeddedChannel(decoder, new H1ConnectionHandler(queue, config, decoder, null));
        channel.freezeTime();
    }

    /** The connection's request clock (T1, T2, T6): frozen, moved only by {@code advanceTimeBy}. */
    long now() {
        return RequestClock.nanoTime(channel.eventLoop());
    }

    void open() {
        open(new H1Config(-1, 30, 20, 10, 10, -1, 16));
    }

    @AfterEach
    void closeChannel() {
        if (channel != null) {
            channel.finishAndReleaseAll();
        }
    }

    void send(String s) {
        ClientBytes.send(channel, s);
    }

    void send(byte[] bytes) {
        ClientBytes.send(channel, bytes);
    }

    String output() {
        return ClientBytes.output(channel);
    }

    static List<Map.Entry<String, String>> headers(String... nameValues) {
        List<Map.Entry<String, String>> list = new ArrayList<>();
        for (int i = 0; i < nameValues.length; i += 2) {
            list.add(Map.entry(nameValues[i], nameValues[i + 1]));
        }
        return list;
    }

    static ByteBuf text(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.ISO_8859_1);
    }

    void answer(RecordingQueue.Submitted s, String body) {
        s.sink.head(200, headers("Content-Length", Integer.toString(body.length())), false);
        s.sink.body(text(body), true);
        channel.runPendingTasks();
    }

    void assertRejected(String request, String status) {
        open(new H1Config(100, 30, 20, 10, 10, -1, 16));
        send(request);
        String out = output();
        assertTrue(out.startsWith("HTTP/1.1 " + status), out);
        assertTrue(out.contains("Connection: close\r\n"), out);
        assertEquals(0, queue.submitted.size(), "a rejected request is never submitted");
        assertFalse(channel.isOpen(), "the connection closes after the rejection");
    }
}
