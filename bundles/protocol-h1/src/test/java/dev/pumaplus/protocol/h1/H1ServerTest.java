/*
 * Claims about the HTTP/1.1 listener on a real loopback socket (accept → parse → queue → respond): binding
 * port 0, announcing the real port, serving a pipelined client, a graceful stop, response backpressure
 * against a client that does not read, and the write timeout that drops a client that stops reading for good.
 */
package dev.pumaplus.protocol.h1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pumaplus.spi.HostSettings;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 20, unit = TimeUnit.SECONDS)
class H1ServerTest {

    /** The host's settings as a map; records the announced URLs. */
    static final class MapSettings implements HostSettings {
        final Map<String, Object> values;
        final List<String> announced = new CopyOnWriteArrayList<>();

        MapSettings(Map<String, Object> values) {
            this.values = values;
        }

        @Override
        public String string(String key, String fallback) {
            Object v = values.get(key);
            return v == null ? fallback : v.toString();
        }

        @Override
        public long number(String key, long fallback) {
            Object v = values.get(key);
            return v == null ? fallback : ((Number) v).longValue();
        }

        @Override
        @SuppressWarnings("unchecked")
        public List<String> strings(String key) {
            Object v = values.get(key);
            return v == null ? List.of() : (List<String>) v;
        }

        @Override
        public void listening(String url) {
            announced.add(url);
        }
    }

    /** Answers every request at once, from a thread of its own as the host would: "echo:" + target. */
    static final class EchoQueue implements SubmitQueue {
        @Override
        public dev.pumaplus.spi.Exchange submit(Object connection, dev.pumaplus.spi.RequestHead head,
                io.netty.buffer.ByteBuf body, java.nio.channels.FileChannel bodyFile,
                dev.pumaplus.spi.ResponseSink sink) {
            int length = body.readableBytes();
            body.release();
            Thread.ofVirtual().start(() -> {
                String text = "echo:" + head.target() + ":" + length;
                sink.head(200, List.of(Map.entry("Content-Length", Integer.toString(text.length()))), false);
                sink.body(Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII), true);
            });
            return new StubExchange(); // the answer is short: never paused
        }
    }

    private H1Server server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static String readUntil(InputStream in, String marker, int occurrences) throws IOException {
        ByteArrayOutputStream seen = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        while (true) {
            String s = seen.toString(StandardCharsets.ISO_8859_1);
            if (s.split(java.util.regex.Pattern.quote(marker), -1).length - 1 >= occurrences) {
                return s;
            }
            int n = in.read(buf);
            if (n < 0) {
                return s;
            }
            seen.write(buf, 0, n);
        }
    }

    @Test
    void bindsPortZeroAnnouncesTheRealPortAndServesPipelinedRequestsInOrder() throws Exception {
        MapSettings settings = new MapSettings(Map.of("binds", List.of("tcp://127.0.0.1:0")));
        server = new H1Server(settings, new EchoQueue(), TestEventLoops.INSTANCE);
        server.start();
        int port = server.boundAddresses().get(0).getPort();
        assertTrue(port > 0);
        assertEquals(List.of("http://127.0.0.1:" + port), settings.announced);
        assertEquals(io.netty.channel.epoll.Epoll.isAvailable() ? "epoll" : "nio", server.transport());
        try (Socket socket = new Socket("127.0.0.1", port)) {
            StringBuilder req = new StringBuilder();
            for (int i = 0; i < 20; i++) {
                req.append("POST /r").append(i).append(" HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc");
            }
            socket.getOutputStream().write(req.toString().getBytes(StandardCharsets.US_ASCII));
            String out = readUntil(socket.getInputStream(), "HTTP/1.1 200 OK", 20);
            out = out + readUntil(socket.getInputStream(), ":3", 20 - (out.split(":3", -1).length - 1));
            int at = -1;
            for (int i = 0; i < 20; i++) {
                int next = out.indexOf("echo:/r" + i + ":3", at + 1);
                assertTrue(next > at, "response " + i + " in request order: " + out);
                at = next;
            }
        }
    }

    @Test
    void uploadOverTheLimitGets413EvenWhileTheClientIsStillSending() throws Exception {
        server = new H1Server(new MapSettings(Map.of("binds", List.of("tcp://127.0.0.1:0"),
                "http_content_length_limit", 1000L)), new EchoQueue(), TestEventLoops.INSTANCE);
        server.start();
        InetSocketAddress address = server.boundAddresses().get(0);
        try (Socket socket = new Socket(address.getAddress(), address.getPort())) {
            socket.setSoTimeout(10_000);
            var out = socket.getOutputStream();
            out.write("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            byte[] chunk = ("10000\r\n" + "x".repeat(65536) + "\r\n").getBytes(StandardCharsets.US_ASCII);
            CountDownLatch sentPastTheLimit = new CountDownLatch(16);
            Thread sender = Thread.ofVirtual().start(() -> {
                try {
                    for (int i = 0; i < 256; i++) {
                        out.write(chunk); // keeps sending after the server has answered
                        sentPastTheLimit.countDown();
                    }
                } catch (IOException ignored) {
                    // the server stops reading once its linger ends; the answer must still be readable
                }
            });
            // The answer waits unread while 1 MiB more body arrives (the server read and refused the first
            // chunk already: it is 64 times the limit).
            assertTrue(sentPastTheLimit.await(10, TimeUnit.SECONDS), "the client sent 1 MiB past the limit");
            String answer = readUntil(socket.getInputStream(), "\r\n\r\n", 1);
            sender.interrupt();
            assertTrue(answer.startsWith("HTTP/1.1 413 "), answer);
        }
    }

    /**
     * Writes to {@code socket} after the server's end of stream until a write fails (the server's socket is
     * gone and answered with a reset) or {@code within} passes; true if one failed.
     */
    private static boolean writesFailWithin(Socket socket, long within, TimeUnit unit) {
        long deadline = System.nanoTime() + unit.toNanos(within);
        byte[] more = "GET /after HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        while (System.nanoTime() < deadline) {
            try {
                socket.getOutputStream().write(more);
            } catch (IOException reset) {
                return true;
            }
            Thread.onSpinWait();
        }
        return false;
    }

    @Test
    void acceptedConnectionsHaveNagleOff() throws Exception {
        AtomicInteger noDelay = new AtomicInteger(-1);
        EchoQueue echo = new EchoQueue();
        SubmitQueue recording = (connection, head, body, bodyFile, sink) -> {
            noDelay.set(((io.netty.channel.Channel) connection).config()
                    .getOption(io.netty.channel.ChannelOption.TCP_NODELAY) ? 1 : 0);
            return echo.submit(connection, head, body, bodyFile, sink);
        };
        server = new H1Server(new MapSettings(Map.of("binds", List.of("tcp://127.0.0.1:0"))), recording,
                TestEventLoops.INSTANCE);
        server.start();
        InetSocketAddress address = server.boundAddresses().get(0);
        try (Socket socket = new Socket(address.getAddress(), address.getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write("GET /n HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            readUntil(socket.getInputStream(), "echo:/n:0", 1);
        }
        assertEquals(1, noDelay.get(), "TCP_NODELAY on the accepted connection: small responses leave at once");
    }

    /**
     * Sends {@code bytes} (a {@code Connection: close} request for /last, perhaps more behind it) to a new
     * echo server and reads its answer to the end of stream; the socket, still open on this side, is returned.
     */
    private Socket answeredToTheEnd(String bytes) throws IOException {
        server = new H1Server(new MapSettings(Map.of("binds", List.of("tcp://127.0.0.1:0"))), new EchoQueue(),
                TestEventLoops.INSTANCE);
        server.start();
        InetSocketAddress address = server.boundAddresses().get(0);
        Socket socket = new Socket(address.getAddress(), address.getPort());
        socket.setSoTimeout(10_000);
        socket.getOutputStream().write(bytes.getBytes(StandardCharsets.US_ASCII));
        String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        assertTrue(answer.startsWith("HTTP/1.1 200 OK") && answer.endsWith("echo:/last:0"), answer);
        return socket;
    }

    @Test
    void aClientThatAnnouncedItsLastRequestIsClosedAtOnceWithoutALinger() throws Exception {
        try (Socket socket = answeredToTheEnd("GET /last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")) {
            // A lingering server would read and drop these for LINGER_SECONDS; a closed one resets them.
            assertTrue(writesFailWithin(socket, H1ConnectionHandler.LINGER_SECONDS * 1000 / 2, TimeUnit.MILLISECONDS),
                    "the server's socket was closed, not kept reading for the linger");
        }
    }

    @Test
    void bytesPipelinedAfterTheLastRequestAreReadDuringTheLingerNotAnsweredWithAReset() throws Exception {
        try (Socket socket = answeredToTheEnd("GET /last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                + "GET /never HTTP/1.1\r\nHost: x\r\n\r\n")) {
            assertFalse(writesFailWithin(socket, 200, TimeUnit.MILLISECONDS),
                    "the server still reads (and drops) what the client sends while it lingers");
        }
    }

    @Test
    void bindsIpv6LoopbackWithBrackets() throws Exception {
        MapSettings settings = new MapSettings(Map.of("binds", List.of("tcp://[::1]:0")));
        server = new H1Server(settings, new EchoQueue(), TestEventLoops.INSTANCE);
        try {
            server.start();
        } catch (IllegalStateException e) {
            org.junit.jupiter.api.Assumptions.abort("no IPv6 loopback here: " + e.getMessage());
        }
        int port = server.boundAddresses().get(0).getPort();
        assertEquals(List.of("http://[::1]:" + port), settings.announced);
    }

    @Test
    void bindFailureNamesTheAddress() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            String bind = "tcp://127.0.0.1:" + taken.getLocalPort();
            server = new H1Server(new MapSettings(Map.of("binds", List.of(bind))), new EchoQueue(), TestEventLoops.INSTANCE);
            IllegalStateException e = assertThrows(IllegalStateException.class, server::start);
            assertTrue(e.getMessage().contains(bind), e.getMessage());
        }
    }

    @Test
    void stopAcceptingClosesTheListenerAndTheIdleConnections() throws Exception {
        server = new H1Server(new MapSettings(Map.of("binds", List.of("tcp://127.0.0.1:0"))), new EchoQueue(), TestEventLoops.INSTANCE);
        server.start();
        InetSocketAddress address = server.boundAddresses().get(0);
        try (Socket idle = new Socket(address.getAddress(), address.getPort())) {
            idle.getOutputStream().write("GET /a HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            readUntil(idle.getInputStream(), "echo:/a:0", 1);
            server.stopAccepting();
            assertEquals(-1, idle.getInputStream().read(), "the idle keep-alive connection is closed");
        }
        assertThrows(ConnectException.class, () -> new Socket(address.getAddress(), address.getPort()).close());
    }

    /**
     * Answers with a chunked body streamed from a thread of its own, as a worker link would: 64 KiB pieces
     * of zeros, pausing whenever {@code body} asks to until {@code resumeResponse}, until a pause is not
     * resumed within 500 ms (the kernel's buffers are full too: the client really does not read); once
     * that one is resumed, a last piece "END".
     */
    static final class StreamingQueue implements SubmitQueue {
        static final int PIECE = 64 * 1024;
        final AtomicLong acceptedAtFirstPause = new AtomicLong();
        final AtomicLong acceptedAtStall = new AtomicLong();
        final CountDownLatch stalled = new CountDownLatch(1);
        final java.util.concurrent.Semaphore resumes = new java.util.concurrent.Semaphore(0);
        final CountDownLatch resumedAfterStall = new CountDownLatch(1);

        @Override
        public dev.pumaplus.spi.Exchange submit(Object connection, dev.pumaplus.spi.RequestHead head,
                io.netty.buffer.ByteBuf body, java.nio.channels.FileChannel bodyFile,
                dev.pumaplus.spi.ResponseSink sink) {
            body.release();
            Thread.ofVirtual().start(() -> {
                sink.head(200, List.of(), false);
                long accepted = 0;
                try {
                    while (accepted < 256L * 1024 * 1024) {
                        accepted += PIECE;
                        if (sink.body(Unpooled.wrappedBuffer(new byte[PIECE]), false)) {
                            continue;
                        }
                        acceptedAtFirstPause.compareAndSet(0, accepted);
                        if (!resumes.tryAcquire(500, TimeUnit.MILLISECONDS)) {
                            acceptedAtStall.set(accepted);
                            stalled.countDown();
                            resumes.acquire();
                            resumedAfterStall.countDown();
                            break;
                        }
                    }
                } catch (InterruptedException e) {
                    return;
                }
                sink.body(Unpooled.copiedBuffer("END", StandardCharsets.US_ASCII), true);
            });
            return new StubExchange() {
                @Override
                public void resumeResponse() {
                    resumes.release();
                }
            };
        }
    }

    @Test
    void clientThatDoesNotReadPausesTheResponsePastOneMebibyteAndReadingResumesIt() throws Exception {
        StreamingQueue queue = new StreamingQueue();
        server = new H1Server(new MapSettings(Map.of("binds", List.of("tcp://127.0.0.1:0"))), queue, TestEventLoops.INSTANCE);
        server.start();
        InetSocketAddress address = server.boundAddresses().get(0);
        try (Socket socket = new Socket()) {
            socket.setReceiveBufferSize(16 * 1024); // keep what the kernel absorbs for the idle client small
            socket.connect(address);
            socket.getOutputStream()
                    .write("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertTrue(queue.stalled.await(15, TimeUnit.SECONDS), "body() asked for a pause that lasted");
            assertTrue(queue.acceptedAtFirstPause.get() > 1024 * 1024,
                    "no pause before 1 MiB is waiting: " + queue.acceptedAtFirstPause.get());
            long accepted = queue.acceptedAtStall.get();
            // 1 MiB waiting in the server plus what the kernel buffers on both sides (a few MiB at most)
            assertTrue(accepted < 16L * 1024 * 1024, "bounded while the client does not read: " + accepted);

            InputStream in = socket.getInputStream();
            byte[] buf = new byte[64 * 1024];
            long total = 0;
            byte[] tail = new byte[0];
            String end = "END\r\n0\r\n\r\n";
            while (!new String(tail, StandardCharsets.ISO_8859_1).endsWith(end)) {
                int n = in.read(buf);
                assertTrue(n > 0, "the response ends with END");
                total += n;
                byte[] joined = new byte[Math.min(64, tail.length + n)];
                int fromTail = joined.length - Math.min(n, joined.length);
                System.arraycopy(tail, tail.length - fromTail, joined, 0, fromTail);
                System.arraycopy(buf, n - (joined.length - fromTail), joined, fromTail, joined.length - fromTail);
                tail = joined;
            }
            assertEquals(0, queue.resumedAfterStall.getCount(), "reading the response resumed the host");
            assertTrue(total > accepted, "everything accepted reached the client: " + total);
            assertFalse(socket.isInputShutdown());
        }
    }

    /**
     * Streams {@code total} bytes of chunked body in pieces of {@code piece} bytes from a thread of its own, as
     * a worker link would: whenever {@code body} asks for a pause it waits for {@code resumeResponse}, and it
     * stops once the exchange is cancelled (the host then drains the worker and frees the slot). The
     * connection's kernel send buffer is pinned small, so that what the client does not read waits in the
     * channel, where the write timeout looks, instead of in a send buffer Linux may grow to several MiB.
     */
    static final class PacedQueue implements SubmitQueue {
        final int piece;
        final long total;
        final Semaphore resumes = new Semaphore(0);
        final AtomicInteger pauses = new AtomicInteger();
        final CountDownLatch cancelled = new CountDownLatch(1);
        volatile long cancelledNanos;
        final CountDownLatch finished = new CountDownLatch(1);

        PacedQueue(int piece, long total) {
            this.piece = piece;
            this.total = total;
        }

        @Override
        public dev.pumaplus.spi.Exchange submit(Object connection, dev.pumaplus.spi.RequestHead head,
                io.netty.buffer.ByteBuf body, java.nio.channels.FileChannel bodyFile,
                dev.pumaplus.spi.ResponseSink sink) {
            body.release();
            ((io.netty.channel.Channel) connection).config().setOption(io.netty.channel.ChannelOption.SO_SNDBUF,
                    16 * 1024);
            Thread.ofVirtual().start(() -> {
                sink.head(200, List.of(), false);
                long sent = 0;
                try {
                    while (sent < total && cancelled.getCount() > 0) {
                        int n = (int) Math.min(piece, total - sent);
                        sent += n;
                        boolean last = sent == total;
                        if (sink.body(Unpooled.wrappedBuffer(new byte[n]), last) || last) {
                            continue;
                        }
                        pauses.incrementAndGet();
                        while (!resumes.tryAcquire(50, TimeUnit.MILLISECONDS)) {
                            if (cancelled.getCount() == 0) {
                                return;
                            }
                        }
                    }
                } catch (InterruptedException e) {
                    return;
                }
                if (sent == total) {
                    finished.countDown();
                }
            });
            return new StubExchange() {
                @Override
                public void resumeResponse() {
                    resumes.release();
                }

                @Override
                public void cancel() {
                    cancelledNanos = System.nanoTime();
                    cancelled.countDown();
                }
            };
        }
    }

    /** Reads {@code n} bytes (or to the end of the stream); returns how many it got. */
    private static long skip(InputStream in, long n) throws IOException {
        byte[] buf = new byte[8192];
        long got = 0;
        while (got < n) {
            int r = in.read(buf, 0, (int) Math.min(buf.length, n - got));
            if (r < 0) {
                break;
            }
            got += r;
        }
        return got;
    }

    @Test
    void clientThatStopsReadingIsDisconnectedAfterTheWriteTimeoutAndTheExchangeIsCancelled() throws Exception {
        PacedQueue queue = new PacedQueue(64 * 1024, 1L << 40); // a response that never ends by itself
        server = new H1Server(new MapSettings(Map.of("binds", List.of("tcp://127.0.0.1:0"),
                "write_timeout", 1L)), queue, TestEventLoops.INSTANCE);
        server.start();
        InetSocketAddress address = server.boundAddresses().get(0);
        try (Socket socket = new Socket()) {
            socket.setReceiveBufferSize(16 * 1024);
            socket.setSoTimeout(15_000);
            socket.connect(address);
            socket.getOutputStream()
                    .write("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = socket.getInputStream();
            assertEquals(512 * 1024, skip(in, 512 * 1024), "the client reads the start of the response");
            long stoppedNanos = System.nanoTime(); // ... and then never reads again, nor hangs up

            assertTrue(queue.cancelled.await(10, TimeUnit.SECONDS), "the exchange is cancelled");
            long afterStop = TimeUnit.NANOSECONDS.toMillis(queue.cancelledNanos - stoppedNanos);
            assertTrue(queue.pauses.get() > 0, "the worker was paused on the client");
            assertTrue(afterStop >= 800, "not before the 1 s write timeout: " + afterStop + " ms");
            assertTrue(afterStop < 5_000, "about the 1 s write timeout: " + afterStop + " ms");
            // What the kernel already holds is still readable; then the stream ends, the response cut short.
            byte[] buf = new byte[64 * 1024];
            while (true) {
                int n;
                try {
                    n = in.read(buf);
                } catch (java.net.SocketException reset) {
                    break;
                }
                if (n < 0) {
                    break;
                }
            }
            assertEquals(1, queue.finished.getCount(), "the response never finished");
        }
    }

    @Test
    void clientThatReadsSlowlyButSteadilyReceivesTheWholeResponsePastBothTimeouts() throws Exception {
        // 1 MiB writes to a client taking ~640 KiB/s: each write takes longer than the 1 s write timeout to
        // reach the socket, but bytes of it move all the time, which is progress. The keep-alive timeout
        // (1 s) must not cut off the end of the last response while it is still on its way.
        int piece = 1024 * 1024;
        long total = 3L * piece;
        PacedQueue queue = new PacedQueue(piece, total);
        server = new H1Server(new MapSettings(Map.of("binds", List.of("tcp://127.0.0.1:0"),
                "write_timeout", 1L, "persistent_timeout", 1L)), queue, TestEventLoops.INSTANCE);
        server.start();
        InetSocketAddress address = server.boundAddresses().get(0);
        try (Socket socket = new Socket()) {
            socket.setReceiveBufferSize(16 * 1024);
            socket.setSoTimeout(15_000);
            socket.connect(address);
            socket.getOutputStream()
                    .write("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            long started = System.nanoTime();
            InputStream in = new java.io.FilterInputStream(socket.getInputStream()) {
                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    try {
                        Thread.sleep(25);
                    } catch (InterruptedException e) {
                        throw new java.io.InterruptedIOException();
                    }
                    return super.read(b, off, Math.min(len, 16 * 1024));
                }

                @Override
                public int read() throws IOException {
                    return super.read();
                }
            };
            String head = readUntil(in, "\r\n\r\n", 1);
            assertTrue(head.startsWith("HTTP/1.1 200 OK\r\n"), head);
            // readUntil may have read past the head: count those body bytes too.
            byte[] early = head.substring(head.indexOf("\r\n\r\n") + 4).getBytes(StandardCharsets.ISO_8859_1);
            java.io.DataInputStream body = new java.io.DataInputStream(
                    new java.io.SequenceInputStream(new java.io.ByteArrayInputStream(early), in));
            long received = 0;
            byte[] buf = new byte[64 * 1024];
            while (true) {
                String sizeLine = line(body);
                long size = Long.parseLong(sizeLine.trim(), 16);
                for (long left = size; left > 0; ) {
                    int n = (int) Math.min(buf.length, left);
                    body.readFully(buf, 0, n);
                    left -= n;
                }
                assertEquals("", line(body), "CRLF after each chunk");
                if (size == 0) {
                    break;
                }
                received += size;
            }
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertEquals(total, received, "the whole body arrived");
            assertTrue(queue.pauses.get() > 0, "the worker was paused on the slow client");
            assertTrue(tookMillis > 2_000, "slower than the write timeout, several times over: " + tookMillis);
            assertEquals(1, queue.cancelled.getCount(), "never cancelled");
            assertFalse(socket.isInputShutdown());
        }
    }

    /** One CRLF-terminated line, without the CRLF. */
    private static String line(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) {
                throw new IOException("the stream ended inside a line: " + sb);
            }
            if (c != '\r') {
                sb.append((char) c);
            }
        }
        return sb.toString();
    }

    @Test
    void unixBindReplacesAStaleSocketFileServesWithPumasPeerAndRemovesTheFileWhenItStopsAccepting() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("h1-unix");
        java.nio.file.Path file = dir.resolve("app.sock");
        java.net.UnixDomainSocketAddress address = java.net.UnixDomainSocketAddress.of(file);
        try (java.nio.channels.ServerSocketChannel gone = java.nio.channels.ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
            gone.bind(address); // closing leaves the file behind, as a killed server's does
        }
        assertTrue(java.nio.file.Files.exists(file));
        List<dev.pumaplus.spi.RequestHead> heads = new CopyOnWriteArrayList<>();
        EchoQueue echo = new EchoQueue();
        MapSettings settings = new MapSettings(Map.of("binds", List.of("unix://" + file + "?mode=0660")));
        server = new H1Server(settings, (SubmitQueue) (connection, head, body, complete, sink) -> {
            heads.add(head);
            return echo.submit(connection, head, body, complete, sink);
        }, TestEventLoops.INSTANCE);
        server.start();
        assertEquals(List.of("unix://" + file), settings.announced);
        assertEquals(java.nio.file.attribute.PosixFilePermissions.fromString("rw-rw----"),
                java.nio.file.Files.getPosixFilePermissions(file));
        try (java.nio.channels.SocketChannel client = java.nio.channels.SocketChannel.open(address)) {
            client.write(java.nio.ByteBuffer.wrap("GET /u HTTP/1.1\r\nHost: example.test\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
            String out = readUntil(java.nio.channels.Channels.newInputStream(client), "echo:/u:0", 1);
            assertTrue(out.startsWith("HTTP/1.1 200 OK"), out);
        }
        assertEquals("127.0.0.1", heads.get(0).remote().getAddress().getHostAddress());

        IllegalStateException taken = assertThrows(IllegalStateException.class,
                () -> new H1Server(new MapSettings(Map.of("binds", List.of("unix://" + file))), echo,
                        TestEventLoops.INSTANCE).start());
        assertTrue(taken.getMessage().contains("already a server bound to " + file), taken.getMessage());
        assertTrue(java.nio.file.Files.exists(file), "a live server's socket file is left alone");

        server.stopAccepting();
        assertFalse(java.nio.file.Files.exists(file), "the socket file is removed once the listener stopped");
        java.nio.file.Files.delete(dir);
    }

    @Test
    void activatedSocketsAreAdoptedInsteadOfBoundAndServe() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(io.netty.channel.epoll.Epoll.isAvailable(), "activation needs epoll");
        io.netty.channel.unix.Socket inherited = io.netty.channel.unix.Socket.newSocketStream();
        inherited.bind(new InetSocketAddress("127.0.0.1", 0));
        inherited.listen(16);
        int port = inherited.localAddress().getPort();
        MapSettings settings = new MapSettings(Map.of("binds", List.of("tcp://0.0.0.0:9292"), "bind_to_activated_sockets", "only"));
        server = new H1Server(settings, new EchoQueue(), TestEventLoops.INSTANCE);
        server.start(ActivatedSockets.of(List.of(inherited.intValue())));
        assertEquals(List.of("http://127.0.0.1:" + port), settings.announced);
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.getOutputStream().write("GET /a HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertTrue(readUntil(socket.getInputStream(), "echo:/a:0", 1).startsWith("HTTP/1.1 200 OK"));
        }
    }
}
