/*
 * The raw WebTransport client of the hostile-input and limits integration tests
 * (test/integration/webtransport_hostile_test.rb, webtransport_limits_test.rb):
 * Kwik's QUIC client under Flupke's HTTP/3 client connection, writing a session's CONNECT, streams, capsules
 * and datagrams byte by byte, so that it can also write what a browser never would. Not part of the bundle.
 */
package dev.pumaplus.protocol.h3;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import tech.kwik.core.QuicClientConnection;
import tech.kwik.core.QuicStream;
import tech.kwik.core.frame.ConnectionCloseFrame;
import tech.kwik.core.frame.ResetStreamFrame;
import tech.kwik.core.frame.StopSendingFrame;
import tech.kwik.core.packet.QuicPacket;
import tech.kwik.flupke.HttpStream;
import tech.kwik.flupke.impl.HeadersFrame;
import tech.kwik.flupke.impl.Http3ClientConnectionImpl;
import tech.kwik.flupke.impl.Http3Frame;

/**
 * Usage: {@code WebTransportProbe hostile URL} (URL: the session's {@code https://host:port/path?query}). A
 * well-behaved session on a connection of its own echoes a message after each hostile input; each input runs on
 * a fresh QUIC connection and prints one line of what the server answered, as the frames it sent:
 * <ul>
 *   <li>{@code early-datagram sent, then session 200}: a datagram for session 0 sent once the server's SETTINGS
 *       arrived and before the client's own, and the same connection's CONNECT (on stream 0) answered after it;</li>
 *   <li>{@code unknown-session uni STOP_SENDING 0x..} and
 *       {@code unknown-session bidi STOP_SENDING 0x.. RESET_STREAM 0x..}: streams naming a session that does not
 *       exist, left open;</li>
 *   <li>{@code oversized-capsule STOP_SENDING 0x.. RESET_STREAM 0x..}: a 2,000-byte capsule on a held session's
 *       CONNECT stream (its session id follows as {@code oversized-capsule session N});</li>
 *   <li>{@code too-many-sessions 200 x N then S}: CONNECTs on one connection until one is refused;</li>
 *   <li>{@code not-a-connect-stream CONNECTION_CLOSE 0x..}: a stream naming session 2, a unidirectional id;</li>
 *   <li>{@code short-datagram CONNECTION_CLOSE 0x..}: a datagram without a whole quarter stream id.</li>
 * </ul>
 * The good session prints {@code good echo K} after each, then {@code datagram echo:small, large:2000 none}: a
 * small datagram's answer, and none for one asking the app for 2,000 bytes (apps/webtransport_echo.ru), more
 * than a QUIC packet holds. The run ends with {@code done}. A frame that does not
 * come within 10 s prints {@code none}. Exits 1 with the exception on any other failure. The server's
 * certificate is not checked.
 *
 * <p>{@code WebTransportProbe limits URL M}, against a host whose {@code webtransport_max_message} is M, prints
 * {@code per-connection 200 x N then S} (CONNECTs on one connection until one is refused), then on a second
 * connection {@code session S, a stream of M bytes echoed with E} (E: the bytes of the app's answer on that
 * bidirectional stream), {@code one more session S} (its second CONNECT), and
 * {@code too-long STOP_SENDING 0x.. close C}: a stream of M + 1 bytes, left open, and the code of the
 * CLOSE_WEBTRANSPORT_SESSION capsule then sent on the session's CONNECT stream; last {@code done}.
 */
public final class WebTransportProbe {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private WebTransportProbe() {
    }

    /** The frames a connection received that end streams or the connection, as Kwik reports received packets. */
    private static final class ReceivedFrames extends KwikLog {
        final List<String> frames = new CopyOnWriteArrayList<>();

        @Override
        public void received(Instant time, int level, QuicPacket packet) {
            packet.getFrames().forEach(frame -> {
                if (frame instanceof StopSendingFrame stop) {
                    frames.add("STOP_SENDING " + stop.getStreamId() + " 0x" + Long.toHexString(stop.getErrorCode()));
                } else if (frame instanceof ResetStreamFrame reset) {
                    frames.add("RESET_STREAM " + reset.getStreamId() + " 0x" + Long.toHexString(reset.getErrorCode()));
                } else if (frame instanceof ConnectionCloseFrame close) {
                    frames.add("CONNECTION_CLOSE 0x" + Long.toHexString(close.getErrorCode()));
                }
            });
        }

        /** The error code of the first received frame whose text starts with {@code prefix}, within {@link #WAIT}; "none". */
        String await(String prefix) throws InterruptedException {
            long deadline = System.nanoTime() + WAIT.toNanos();
            do {
                for (String frame : frames) {
                    if (frame.startsWith(prefix)) {
                        return frame.substring(frame.lastIndexOf(' ') + 1);
                    }
                }
                Thread.sleep(10);
            } while (System.nanoTime() < deadline);
            return "none";
        }
    }

    /** One QUIC connection speaking HTTP/3, with the raw stream access the hostile inputs need. */
    private static final class Connection extends Http3ClientConnectionImpl {
        final QuicClientConnection quic;
        final ReceivedFrames received;
        final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
        final BlockingQueue<byte[]> datagrams = new LinkedBlockingQueue<>();

        Connection(QuicClientConnection quic, ReceivedFrames received, ExecutorService executor) {
            super(quic, executor);
            this.quic = quic;
            this.received = received;
            addSettingsParameter(WebTransportCodes.SETTINGS_H3_DATAGRAM, 1);
            addSettingsParameter(WebTransportCodes.SETTINGS_ENABLE_WEBTRANSPORT_DRAFT02, 1);
            // The server's messages on its unidirectional streams: the session id, then the bytes.
            registerUnidirectionalStreamType(WebTransportCodes.STREAM_TYPE_WEBTRANSPORT, this::serverStream);
        }

        /**
         * Waits for the server's SETTINGS: its HTTP/3 connection exists, so its datagram handler is set (a datagram
         * arriving before that is dropped by Kwik unseen).
         */
        void awaitServerSettings() throws Exception {
            if (!settingsFrameReceived.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IOException("no SETTINGS from the server");
            }
        }

        private void serverStream(HttpStream stream) {
            try {
                InputStream in = stream.getInputStream();
                long session = QuicVarint.read(in);
                messages.add(session + " " + new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                messages.add("failed " + e);
            }
        }

        /** Sends an extended CONNECT for a WebTransport session; returns its stream and the response status. */
        Connect connect(URI uri) throws Exception {
            QuicStream stream = quic.createStream(true);
            String path = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
            OutputStream out = stream.getOutputStream();
            out.write(new HeadersFrame(null, Map.of(HeadersFrame.PSEUDO_HEADER_METHOD, "CONNECT",
                    ":protocol", "webtransport", HeadersFrame.PSEUDO_HEADER_SCHEME, "https",
                    HeadersFrame.PSEUDO_HEADER_AUTHORITY, uri.getAuthority(), HeadersFrame.PSEUDO_HEADER_PATH, path))
                    .toBytes(qpackEncoder));
            out.flush();
            Http3Frame frame = readFrame(stream.getInputStream());
            if (!(frame instanceof HeadersFrame headers)) {
                throw new IOException("CONNECT answered with " + frame);
            }
            return new Connect(stream, Integer.parseInt(headers.getPseudoHeader(HeadersFrame.PSEUDO_HEADER_STATUS)));
        }

        /** CONNECTs until the server refuses one (or 100 are held): {@code 200 x N then S}. */
        String connectUntilRefused(URI uri) throws Exception {
            int accepted = 0;
            int status;
            while ((status = connect(uri).status()) == 200 && accepted < 100) {
                accepted++;
            }
            return "200 x " + accepted + " then " + status;
        }

        /**
         * A WebTransport stream naming {@code session} and carrying {@code bytes}: unidirectional or bidirectional,
         * its side ended or, when not {@code end}, left open (a hostile stream, so that stopping it means something).
         */
        QuicStream stream(boolean bidirectional, long session, byte[] bytes, boolean end) throws IOException {
            QuicStream stream = quic.createStream(bidirectional);
            OutputStream out = stream.getOutputStream();
            out.write(QuicVarint.encode(bidirectional ? WebTransportCodes.FRAME_TYPE_WEBTRANSPORT_STREAM
                    : WebTransportCodes.STREAM_TYPE_WEBTRANSPORT));
            out.write(QuicVarint.encode(session));
            out.write(bytes);
            if (end) {
                out.close();
            } else {
                out.flush();
            }
            return stream;
        }
    }

    private record Connect(QuicStream stream, int status) {
    }

    /** A QUIC connection to {@code uri}'s host, handshake done, HTTP/3 not yet started unless {@code h3}. */
    private static Connection open(URI uri, ExecutorService executor, boolean h3) throws IOException {
        ReceivedFrames received = new ReceivedFrames();
        QuicClientConnection quic = QuicClientConnection.newBuilder()
                .uri(uri)
                .applicationProtocol("h3")
                .noServerCertificateCheck()
                .enableDatagramExtension()
                .maxOpenPeerInitiatedUnidirectionalStreams(100)
                .connectTimeout(Duration.ofSeconds(20))
                .logger(received)
                .build();
        Connection connection = new Connection(quic, received, executor);
        quic.setDatagramHandler(connection.datagrams::add);
        quic.connect();
        if (h3) {
            connection.connect();
        }
        return connection;
    }

    /** The good session's check: a message on a uni stream comes back as "echo:..." on a stream of the server's. */
    private static void echo(Connection good, long session, int k, PrintStream out) throws Exception {
        good.stream(false, session, ("ping " + k).getBytes(StandardCharsets.UTF_8), true);
        String answer = good.messages.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        out.println(("" + session + " echo:ping " + k).equals(answer) ? "good echo " + k : "good lost " + k + ": " + answer);
    }

    private static void hostile(URI uri, PrintStream out) throws Exception {
        ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
        int k = 0;
        Connection good = open(uri, executor, true);
        Connect session = good.connect(uri);
        out.println("good session " + session.stream().getStreamId() + " status " + session.status());
        echo(good, session.stream().getStreamId(), k++, out);

        // A datagram before the client's SETTINGS (no HTTP/3 stream of the client's exists yet), then a session on the
        // same connection.
        Connection early = open(uri, executor, false);
        early.awaitServerSettings();
        early.quic.sendDatagram(DatagramCodec.encode(0, "too early".getBytes(StandardCharsets.UTF_8)));
        early.connect();
        Connect after = early.connect(uri);
        out.println("early-datagram sent, then session " + after.status());
        echo(good, session.stream().getStreamId(), k++, out);

        // Streams naming session 400: a CONNECT stream's id, but no session there.
        QuicStream lost = early.stream(false, 400, "lost".getBytes(StandardCharsets.UTF_8), false);
        out.println("unknown-session uni STOP_SENDING " + early.received.await("STOP_SENDING " + lost.getStreamId() + " "));
        QuicStream lostBidi = early.stream(true, 400, "lost".getBytes(StandardCharsets.UTF_8), false);
        out.println("unknown-session bidi STOP_SENDING " + early.received.await("STOP_SENDING " + lostBidi.getStreamId() + " ")
                + " RESET_STREAM " + early.received.await("RESET_STREAM " + lostBidi.getStreamId() + " "));
        echo(good, session.stream().getStreamId(), k++, out);

        // A capsule of 2,000 bytes on the held session's CONNECT stream (at most 1,028 are taken).
        long id = after.stream().getStreamId();
        out.println("oversized-capsule session " + id);
        OutputStream connectOut = after.stream().getOutputStream();
        connectOut.write(CapsuleCodec.dataFrame(CapsuleCodec.encode(WebTransportCodes.CAPSULE_CLOSE_WEBTRANSPORT_SESSION,
                new byte[2000])));
        connectOut.flush();
        out.println("oversized-capsule STOP_SENDING " + early.received.await("STOP_SENDING " + id + " ")
                + " RESET_STREAM " + early.received.await("RESET_STREAM " + id + " "));
        echo(good, session.stream().getStreamId(), k++, out);

        // Sessions on one connection until the server refuses one.
        Connection many = open(uri, executor, true);
        out.println("too-many-sessions " + many.connectUntilRefused(uri));
        echo(good, session.stream().getStreamId(), k++, out);

        // A stream naming session 2: a client's unidirectional stream id, never a CONNECT stream.
        Connection wrongId = open(uri, executor, true);
        wrongId.stream(false, 2, "wrong".getBytes(StandardCharsets.UTF_8), false);
        out.println("not-a-connect-stream CONNECTION_CLOSE " + wrongId.received.await("CONNECTION_CLOSE"));
        echo(good, session.stream().getStreamId(), k++, out);

        // A datagram of one byte announcing a two-byte varint: no whole quarter stream id.
        Connection shortDatagram = open(uri, executor, true);
        shortDatagram.awaitServerSettings();
        shortDatagram.quic.sendDatagram(HexFormat.of().parseHex("40"));
        out.println("short-datagram CONNECTION_CLOSE " + shortDatagram.received.await("CONNECTION_CLOSE"));
        echo(good, session.stream().getStreamId(), k, out);

        // The app answers a datagram with "echo:" and its bytes, and "large:N" with N bytes: a small answer comes
        // back, one of 2,000 bytes (more than a QUIC packet holds) is dropped by the host (datagrams_unsent).
        long id0 = session.stream().getStreamId();
        String small = "none";
        for (int i = 0; i < 5 && small.equals("none"); i++) {
            good.quic.sendDatagram(DatagramCodec.encode(id0, "small".getBytes(StandardCharsets.UTF_8)));
            byte[] answer = good.datagrams.poll(1, TimeUnit.SECONDS);
            small = answer == null ? "none" : new String(DatagramCodec.decode(answer).payload(), StandardCharsets.UTF_8);
        }
        good.quic.sendDatagram(DatagramCodec.encode(id0, "large:2000".getBytes(StandardCharsets.UTF_8)));
        byte[] answer = good.datagrams.poll(2, TimeUnit.SECONDS);
        out.println("datagram " + small + ", large:2000 " + (answer == null ? "none" : answer.length + " bytes"));

        for (Connection connection : List.of(early, many, wrongId, shortDatagram, good)) {
            connection.quic.closeAndWait(Duration.ofSeconds(2)); // its CONNECTION_CLOSE out before the JVM exits
        }
        out.println("done");
    }

    /**
     * The configured limits, against a host run with {@code webtransport_sessions_per_connection N},
     * {@code webtransport_max_sessions N + 1} and {@code webtransport_max_message M} (M = {@code maxMessage}).
     */
    private static void limits(URI uri, int maxMessage, PrintStream out) throws Exception {
        ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
        Connection first = open(uri, executor, true);
        out.println("per-connection " + first.connectUntilRefused(uri));

        // The last session the host holds in all, on a connection of its own; held once its echo came back.
        Connection second = open(uri, executor, true);
        Connect last = second.connect(uri);
        long id = last.stream().getStreamId();
        QuicStream atLimit = second.stream(true, id, new byte[maxMessage], true);
        byte[] echo = executor.submit(() -> atLimit.getInputStream().readAllBytes()).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        out.println("session " + last.status() + ", a stream of " + maxMessage + " bytes echoed with " + echo.length);
        out.println("one more session " + second.connect(uri).status());

        // One byte past the limit, the stream left open: stopped, and the session closed with its capsule.
        QuicStream tooLong = second.stream(false, id, new byte[maxMessage + 1], false);
        String stop = second.received.await("STOP_SENDING " + tooLong.getStreamId() + " ");
        CapsuleCodec.Capsule capsule = executor.submit(() -> CapsuleCodec.read(
                new DataFrameInputStream(last.stream().getInputStream()), WebTransportSession.MAX_CAPSULE))
                .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        CapsuleCodec.Close close = capsule == null ? null : CapsuleCodec.decodeClose(capsule.value());
        out.println("too-long STOP_SENDING " + stop + " close " + (close == null ? "none" : close.code()));

        for (Connection connection : List.of(first, second)) {
            connection.quic.closeAndWait(Duration.ofSeconds(2));
        }
        out.println("done");
    }

    /** {@code hostile URL} or {@code limits URL MAX_MESSAGE}. */
    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        switch (args[0]) {
            case "hostile" -> hostile(URI.create(args[1]), out);
            case "limits" -> limits(URI.create(args[1]), Integer.parseInt(args[2]), out);
            default -> throw new IllegalArgumentException("unknown mode " + args[0]);
        }
        System.exit(0);
    }
}
