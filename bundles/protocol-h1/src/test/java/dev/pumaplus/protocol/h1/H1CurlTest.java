/*
 * Claims about the HTTP/1.1 listener as a real client sees it (accept → parse → queue → respond): curl
 * uploads a 3 MiB body (Expect: 100-continue, streamed past 1 MiB), reads a chunked response, and reuses
 * one keep-alive connection for several requests.
 */
package dev.pumaplus.protocol.h1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pumaplus.spi.Exchange;
import dev.pumaplus.spi.RequestHead;
import dev.pumaplus.spi.ResponseSink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class H1CurlTest {

    /**
     * Answers each request, from a thread of its own as the host would, with a chunked (length-less) body
     * naming the target, how many body bytes arrived, and whether the body came spooled to a file.
     */
    static final class CountingQueue implements SubmitQueue {
        @Override
        public Exchange submit(Object connection, RequestHead head, ByteBuf body, java.nio.channels.FileChannel bodyFile,
                ResponseSink sink) {
            long bytes = body.readableBytes();
            body.release();
            if (bodyFile != null) {
                try (bodyFile) {
                    bytes = bodyFile.size();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
            long total = bytes;
            Thread.ofVirtual().start(() -> {
                sink.head(200, List.of(Map.entry("Content-Type", "text/plain")), false);
                sink.body(Unpooled.copiedBuffer(head.target() + " ", StandardCharsets.US_ASCII), false);
                sink.body(Unpooled.copiedBuffer(total + " spooled=" + (bodyFile != null) + "\n",
                        StandardCharsets.US_ASCII), true);
            });
            return new StubExchange();
        }
    }

    @TempDir
    Path tmp;
    private H1Server server;
    private int port;

    @BeforeEach
    void start() {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/curl")), "curl is not installed");
        server = new H1Server(new H1ServerTest.MapSettings(Map.of("binds", List.of("tcp://127.0.0.1:0"))),
                new CountingQueue(), TestEventLoops.INSTANCE);
        server.start();
        port = server.boundAddresses().get(0).getPort();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private String curl(String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of("/usr/bin/curl", "-sS", "--http1.1",
                "--max-time", "30"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        assertEquals(0, p.waitFor(), "curl failed: " + out);
        return out;
    }

    @Test
    void curlUploadOfThreeMebibytesWithExpectContinueIsSpooledAndAnswered() throws Exception {
        byte[] body = new byte[3 * 1024 * 1024];
        new Random(3).nextBytes(body);
        Path file = tmp.resolve("upload.bin");
        Files.write(file, body);
        String out = curl("-v", "-H", "Expect: 100-continue", "--data-binary", "@" + file,
                "http://127.0.0.1:" + port + "/upload");
        assertTrue(out.contains("< HTTP/1.1 100 Continue"), out);
        assertTrue(out.contains("< Transfer-Encoding: chunked"), out);
        assertTrue(out.contains("/upload " + body.length + " spooled=true"), out);
    }

    @Test
    void curlReusesOneKeepAliveConnectionForSeveralRequests() throws Exception {
        String base = "http://127.0.0.1:" + port;
        String out = curl("-w", "connects=%{num_connects}\n", base + "/a", base + "/b", base + "/c");
        assertTrue(out.contains("/a 0 spooled=false\n") && out.contains("/b 0 spooled=false\n")
                && out.contains("/c 0 spooled=false\n"), out);
        assertEquals(List.of("connects=1", "connects=0", "connects=0"),
                out.lines().filter(l -> l.startsWith("connects=")).toList(), out);
    }
}
