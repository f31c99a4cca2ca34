/*
 * The HTTP/3 client the integration tests run (test/integration/h3_*_test.rb): Flupke's Http3Client, a
 * java.net.http.HttpClient over QUIC, driven from the command line. Not part of the bundle.
 */
package dev.pumaplus.protocol.h3;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import tech.kwik.core.QuicStream;
import tech.kwik.core.frame.DataBlockedFrame;
import tech.kwik.core.frame.StreamDataBlockedFrame;
import tech.kwik.core.packet.QuicPacket;
import tech.kwik.flupke.Http3Client;
import tech.kwik.flupke.impl.DataFrame;
import tech.kwik.flupke.impl.HeadersFrame;
import tech.kwik.flupke.impl.Http3Frame;

/**
 * Usage: {@code H3Probe get URL [Name:Value ...]} prints {@code status N}, each response header as
 * {@code header name: value}, then {@code body} and the body; {@code H3Probe post URL SIZE} posts SIZE bytes (byte i is i mod 251), prints
 * {@code blocked N}, the STREAM_DATA_BLOCKED and DATA_BLOCKED frames the client sent (each time the
 * server's flow-control window stopped the upload), then prints as {@code get} does; {@code H3Probe stream URL [WARMUP_URL]} prints one
 * line {@code <nanoTime> <bytes>} per read of the body as it arrives (after 30 GETs of WARMUP_URL on the
 * same connection, read the same way, if given); {@code H3Probe compare URL WARM N} makes WARM
 * then N timed sequential requests over h2 (the JDK's client; its host name check is off with
 * {@code -Djdk.internal.httpclient.disableHostnameVerification=true}) and over h3, and prints each
 * protocol's p50 and p90 in µs; {@code H3Probe stall URL SIZE OTHER_URL} (a raw request stream,
 * {@link StallingH3Connection}) GETs OTHER_URL, then POSTs SIZE bytes to URL and sends no more and never
 * ends the body, printing {@code stalled <nanoTime>} once they are written, {@code status N <nanoTime>}
 * when the response's HEADERS arrive and {@code end <nanoTime> body <text>} at the response's end, then
 * {@code output reset} if the server stopped the upload (a further body byte is refused) or
 * {@code output open}, then GETs OTHER_URL again on the same QUIC connection; each GET prints
 * {@code get N}. If the server resets the upload while its SIZE bytes are still being written, it prints
 * {@code upload reset after <ms> ms: <reason>} instead and stops there. Exits 1 with the exception on
 * any other failure. The server's certificate is not checked.
 */
public final class H3Probe {

    private H3Probe() {
    }

    /**
     * The client connection's logger: the server's (Kwik's errors as warnings, here on the JDK's console
     * handler, stderr, away from the output the tests parse), counting the flow-control BLOCKED frames in
     * the packets it is told were sent (Kwik reports every sent packet to its logger, logging on or off).
     */
    private static final class BlockedFrames extends KwikLog {
        final AtomicInteger count = new AtomicInteger();

        @Override
        public void sent(Instant sent, QuicPacket packet) {
            packet.getFrames().stream()
                    .filter(f -> f instanceof StreamDataBlockedFrame || f instanceof DataBlockedFrame)
                    .forEach(f -> count.incrementAndGet());
        }

        @Override
        public void sent(Instant sent, List<QuicPacket> packets) {
            packets.forEach(packet -> sent(sent, packet));
        }
    }

    /** {@code warm} requests, then {@code n} timed ones, one after the other; sorted latencies in µs. */
    private static long[] sequential(HttpClient client, URI uri, int warm, int n) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(uri).build();
        for (int i = 0; i < warm; i++) {
            client.send(request, HttpResponse.BodyHandlers.ofByteArray());
        }
        long[] micros = new long[n];
        for (int i = 0; i < n; i++) {
            long start = System.nanoTime();
            HttpResponse<byte[]> response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
            micros[i] = (System.nanoTime() - start) / 1000;
            if (response.statusCode() != 200) {
                throw new IllegalStateException("status " + response.statusCode());
            }
        }
        Arrays.sort(micros);
        return micros;
    }

    /**
     * Sends {@code request} with the JDK's InputStream body handler and prints one line {@code <nanoTime> <bytes>}
     * per read as the body arrives (newlines in the bytes as {@code \n}); the time is taken as the read returns.
     */
    private static void timedReads(HttpClient client, HttpRequest request, PrintStream out) throws Exception {
        HttpResponse<InputStream> response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream body = response.body()) {
            byte[] buf = new byte[65536];
            int n;
            while ((n = body.read(buf)) >= 0) {
                out.println(System.nanoTime() + " " + new String(buf, 0, n, StandardCharsets.ISO_8859_1)
                        .replace("\n", "\\n"));
            }
        }
    }

    /** The stall mode (see the class comment): one QUIC connection, a GET, a stalled POST, a GET. */
    private static void stall(URI upload, int size, URI other, PrintStream out) throws Exception {
        // Flupke reads the server's control streams on this executor for as long as the connection lives; the
        // process exits with main.
        ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
        StallingH3Connection connection = new StallingH3Connection(upload.getHost(), upload.getPort(), executor);
        connection.connect();
        HttpRequest get = HttpRequest.newBuilder(other).timeout(Duration.ofSeconds(10)).build();
        out.println("get " + connection.send(get, HttpResponse.BodyHandlers.discarding()).statusCode());
        String path = upload.getRawPath() + (upload.getRawQuery() == null ? "" : "?" + upload.getRawQuery());
        long posting = System.nanoTime();
        QuicStream stream;
        try {
            stream = connection.openPost(upload.getHost() + ":" + upload.getPort(), path, new byte[size]);
        } catch (IOException e) {
            // The server reset the stream before the whole first SIZE bytes went out: the stall never began.
            out.println("upload reset after " + (System.nanoTime() - posting) / 1_000_000 + " ms: " + e.getMessage());
            return;
        }
        out.println("stalled " + System.nanoTime());
        StringBuilder body = new StringBuilder();
        Http3Frame frame;
        while ((frame = connection.readFrame(stream)) != null) {
            if (frame instanceof HeadersFrame headers) {
                out.println("status " + headers.getPseudoHeader(HeadersFrame.PSEUDO_HEADER_STATUS) + " "
                        + System.nanoTime());
            } else if (frame instanceof DataFrame data) {
                body.append(new String(data.getPayload(), StandardCharsets.ISO_8859_1));
            }
        }
        out.println("end " + System.nanoTime() + " body " + body.toString().replace("\n", "\\n"));
        try {
            stream.getOutputStream().write(new DataFrame(new byte[1]).toBytes());
            out.println("output open");
        } catch (IOException e) {
            out.println("output reset"); // Kwik refuses writes once the server's STOP_SENDING reset the stream
        }
        out.println("get " + connection.send(get, HttpResponse.BodyHandlers.discarding()).statusCode());
    }

    /** Trusts any server certificate: the test servers use self-signed ones. */
    private static SSLContext trustAll() throws Exception {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, new TrustManager[] {new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String type) {
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String type) {
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        }}, null);
        return context;
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BlockedFrames blocked = new BlockedFrames();
        HttpClient client = ((tech.kwik.flupke.Http3ClientBuilder) Http3Client.newBuilder())
                .logger(blocked)
                .disableCertificateCheck()
                .connectTimeout(Duration.ofSeconds(20)) // a cold JVM on a loaded machine is slow to its first handshake
                // Windows the server can fill in large steps: with Kwik's small default a multi-MiB response waits
                // for hundreds of window updates, and one missed on a loaded machine stalls it to the idle timeout.
                .receiveBufferSize(1 << 20)
                .build();
        URI uri = URI.create(args[1]);
        switch (args[0]) {
            case "get" -> {
                // 30 s: a cold client JVM decrypting megabytes beside a busy server is slow, not wrong (the caller's
                // own timeout is 60 s); the claims are about what arrives.
                HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30));
                for (String header : Arrays.copyOfRange(args, 2, args.length)) {
                    int colon = header.indexOf(':');
                    request.header(header.substring(0, colon).trim(), header.substring(colon + 1).trim());
                }
                HttpResponse<byte[]> response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
                out.println("status " + response.statusCode());
                response.headers().map().forEach((name, values) -> values.forEach(v -> out.println("header " + name + ": " + v)));
                out.println("body");
                out.write(response.body());
                out.flush();
            }
            case "post" -> {
                // A body of SIZE bytes, byte i = i mod 251, so the server's digest can be checked.
                byte[] body = new byte[Integer.parseInt(args[2])];
                for (int i = 0; i < body.length; i++) {
                    body[i] = (byte) (i % 251);
                }
                HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(uri)
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofByteArray());
                out.println("blocked " + blocked.count.get());
                out.println("status " + response.statusCode());
                out.println("body");
                out.write(response.body());
                out.flush();
            }
            case "stream" -> {
                if (args.length > 2) {
                    // Warm exactly the path that is timed (same body handler, same read loop, output discarded):
                    // the first ofInputStream response of a JVM initialises the JDK's InputStream subscriber (its
                    // class and debug logger, whose config record's methods are bootstrapped through method
                    // handles), 25-50 ms on the loaded 2-core machine, on the thread that has just read HEADERS
                    // and before it subscribes to the body, so the first event would wait that long in Kwik's
                    // receive buffer. See docs/benchmarks/NOTEBOOK.md, HTTP/3.
                    HttpRequest warm = HttpRequest.newBuilder(URI.create(args[2])).build();
                    PrintStream discard = new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);
                    for (int i = 0; i < 30; i++) {
                        timedReads(client, warm, discard);
                    }
                }
                timedReads(client, HttpRequest.newBuilder(uri).build(), out);
            }
            case "compare" -> {
                // Sequential requests, one connection per protocol: h2 with the JDK's client, h3 with Flupke's.
                int warm = Integer.parseInt(args[2]);
                int n = Integer.parseInt(args[3]);
                HttpClient h2 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2)
                        .sslContext(trustAll()).build();
                long[] h2Micros = sequential(h2, uri, warm, n);
                long[] h3Micros = sequential(client, uri, warm, n);
                out.println("h2_p50_us " + h2Micros[n / 2] + " h2_p90_us " + h2Micros[n * 9 / 10]);
                out.println("h3_p50_us " + h3Micros[n / 2] + " h3_p90_us " + h3Micros[n * 9 / 10]);
            }
            case "stall" -> stall(uri, Integer.parseInt(args[2]), URI.create(args[3]), out);
            default -> throw new IllegalArgumentException("unknown mode " + args[0]);
        }
        System.exit(0);
    }
}
