/*
 * A raw HTTP/2 client for claim tests on the wire (accept → parse → respond): it writes frames as the bytes
 * Netty's DefaultHttp2FrameWriter makes, into a server connection that H2Connections sets up exactly as in
 * production, reached one of the three ways a connection becomes HTTP/2 (TLS with ALPN h2, h2c prior
 * knowledge, the h2c upgrade), and decodes what the server sends back with DefaultHttp2FrameReader.
 */
package dev.pumaplus.protocol.h2;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.DefaultChannelId;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.local.LocalServerChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.DefaultHttp2FrameReader;
import io.netty.handler.codec.http2.DefaultHttp2FrameWriter;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;

/**
 * One client connection. Bytes move between the client's and the server's EmbeddedChannel only in
 * {@link #exchange()}, so frames written together before it arrive at the server in one read, as they would
 * in one TCP segment. Not thread-safe (the test's thread drives both ends).
 */
final class H2WireClient implements AutoCloseable {

    /** How the connection reaches HTTP/2; each is the path protocol-h1 hands over through Http2Handoff. */
    enum Transport {
        /** TLS whose ALPN chose h2: {@code serve(channel, "https", ...)} behind a real TLS handshake. */
        TLS_ALPN_H2,
        /** Cleartext that opened with the connection preface: {@code serve(channel, "http", ...)}. */
        H2C_PRIOR_KNOWLEDGE,
        /** An HTTP/1.1 request with {@code Upgrade: h2c}: answered 101, then served as stream 1. */
        H2C_UPGRADE
    }

    /** A frame the server sent, as far as the claims need it. */
    record Frame(String type, int streamId, long errorCode, Http2Headers headers, String data) {
    }

    /** The target of the upgrade request, which becomes stream 1 on an upgraded connection. */
    static final String UPGRADE_TARGET = "/upgraded";

    private static SslContext serverTls;
    private static SslContext clientTls;

    final Transport transport;
    final EmbeddedChannel server;
    private final EmbeddedChannel client;
    private final ClientEnd end = new ClientEnd();
    private final DefaultHttp2FrameWriter writer = new DefaultHttp2FrameWriter();
    private final DefaultHttp2FrameReader reader = new DefaultHttp2FrameReader(false);
    private final List<Frame> frames = new ArrayList<>();
    private final ByteBuf received = Unpooled.buffer();
    /** An upgraded connection starts with the HTTP/1.1 101 response, not with frames. */
    private boolean http1ResponsePending;
    private int nextStreamId;
    /** SETTINGS acknowledgements wait until the client's preface is out, which must come first. */
    private boolean prefaceWritten;
    private int settingsToAcknowledge;

    /**
     * Connects to {@code connections} over {@code transport}; with {@code preface} the client connection
     * preface and an empty SETTINGS frame are written, otherwise the test writes its own first bytes.
     */
    H2WireClient(H2Connections connections, Transport transport, boolean preface) {
        this.transport = transport;
        // A listener's child, as in production: Netty's multiplexer tells a server's connection by its parent.
        this.server = new EmbeddedChannel(new LocalServerChannel(), DefaultChannelId.newInstance(), true, false);
        switch (transport) {
            case TLS_ALPN_H2 -> {
                server.pipeline().addLast("tls", serverTls().newHandler(server.alloc()));
                server.pipeline().addLast("alpn", new ApplicationProtocolNegotiationHandler("none") {
                    @Override
                    protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
                        if (!ApplicationProtocolNames.HTTP_2.equals(protocol)) {
                            throw new IllegalStateException("ALPN chose " + protocol);
                        }
                        connections.serve(ctx.channel(), "https", null);
                    }
                });
                client = new EmbeddedChannel(clientTls().newHandler(server.alloc()), end);
            }
            case H2C_PRIOR_KNOWLEDGE -> {
                connections.serve(server, "http", null);
                client = new EmbeddedChannel(end);
            }
            case H2C_UPGRADE -> {
                DefaultFullHttpRequest upgrade = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET,
                        UPGRADE_TARGET, Unpooled.EMPTY_BUFFER);
                upgrade.headers().set("host", "localhost").set("connection", "Upgrade, HTTP2-Settings")
                        .set("upgrade", "h2c").set("http2-settings", "AAIAAAAA"); // ENABLE_PUSH 0
                http1ResponsePending = true;
                connections.upgrade(server, upgrade);
                client = new EmbeddedChannel(end);
            }
            default -> throw new IllegalArgumentException(transport.name());
        }
        nextStreamId = transport == Transport.H2C_UPGRADE ? 3 : 1;
        exchange();
        if (preface) {
            send(Unpooled.wrappedBuffer(Http2CodecUtil.connectionPrefaceBuf()));
            writer.writeSettings(end.ctx, new Http2Settings(), end.ctx.newPromise());
            prefaceWritten = true;
            for (; settingsToAcknowledge > 0; settingsToAcknowledge--) {
                writer.writeSettingsAck(end.ctx, end.ctx.newPromise());
            }
            exchange();
        }
    }

    /** A stream id this client has not used yet (odd, increasing). */
    int newStreamId() {
        int id = nextStreamId;
        nextStreamId += 2;
        return id;
    }

    /** A complete request head for {@code target}: :method, :scheme, :path and :authority. */
    static Http2Headers request(String method, String target) {
        return new DefaultHttp2Headers().method(method).scheme("https").path(target).authority("localhost");
    }

    void send(ByteBuf bytes) {
        end.ctx.write(bytes);
    }

    void headers(int streamId, Http2Headers headers, boolean endStream) {
        writer.writeHeaders(end.ctx, streamId, headers, 0, endStream, end.ctx.newPromise());
    }

    void data(int streamId, String text, boolean endStream) {
        writer.writeData(end.ctx, streamId, Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII), 0, endStream,
                end.ctx.newPromise());
    }

    void windowUpdate(int streamId, int increment) {
        // The writer refuses an increment of 0, which is the point of one claim: that frame is built by hand.
        ByteBuf frame = Unpooled.buffer(13);
        frame.writeMedium(4).writeByte(0x8).writeByte(0).writeInt(streamId).writeInt(increment);
        send(frame);
    }

    /** A frame of {@code type} with {@code payload}, exactly as given (for lengths the writer would refuse). */
    void rawFrame(int type, int flags, int streamId, byte[] payload) {
        ByteBuf frame = Unpooled.buffer(9 + payload.length);
        frame.writeMedium(payload.length).writeByte(type).writeByte(flags).writeInt(streamId).writeBytes(payload);
        send(frame);
    }

    /**
     * Flushes what the client wrote and carries bytes both ways until neither end has more: everything the
     * server does in answer to them (its event loop's tasks included) has happened on return.
     */
    void exchange() {
        end.ctx.flush();
        for (int round = 0; round < 1000; round++) {
            boolean moved = carry(client, server);
            server.runPendingTasks();
            moved |= carry(server, client);
            if (!moved) {
                return;
            }
        }
        throw new IllegalStateException("the connection never went quiet");
    }

    /** Every frame the server has sent so far, in order. */
    List<Frame> frames() {
        return frames;
    }

    /** The connection is closed on the server's side. */
    boolean closed() {
        return !server.isOpen();
    }

    @Override
    public void close() {
        received.release();
        server.finishAndReleaseAll();
        client.finishAndReleaseAll();
    }

    /** Moves what {@code from} wrote into {@code to}'s inbound side as one read; true if there was any. */
    private static boolean carry(EmbeddedChannel from, EmbeddedChannel to) {
        List<ByteBuf> pending = new ArrayList<>();
        for (Object msg; (msg = from.readOutbound()) != null; ) {
            pending.add((ByteBuf) msg);
        }
        if (pending.isEmpty()) {
            return false;
        }
        ByteBuf read = Unpooled.wrappedBuffer(pending.toArray(ByteBuf[]::new));
        if (to.isOpen()) {
            try {
                to.writeInbound(read);
            } catch (Exception e) { // thrown unchecked, as Netty does
                // The codec passes a connection error it has answered on down the pipeline, whose end (the
                // host's log in production) the EmbeddedChannel stands for by throwing it here.
                if (Http2CodecUtil.getEmbeddedHttp2Exception(e) == null) {
                    throw e;
                }
            }
        } else {
            read.release();
        }
        return true;
    }

    /** The client's last handler: its context writes the frames; it decodes the server's bytes. */
    private final class ClientEnd extends ChannelInboundHandlerAdapter {
        ChannelHandlerContext ctx;

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) throws Http2Exception {
            try {
                received.writeBytes((ByteBuf) msg);
            } finally {
                ReferenceCountUtil.release(msg);
            }
            if (http1ResponsePending) {
                int end = ByteBufUtil.indexOf(Unpooled.wrappedBuffer("\r\n\r\n".getBytes(StandardCharsets.US_ASCII)),
                        received);
                if (end < 0) {
                    return;
                }
                String status = received.readCharSequence(end - received.readerIndex(), StandardCharsets.US_ASCII)
                        .toString();
                if (!status.startsWith("HTTP/1.1 101")) {
                    throw new IllegalStateException("the upgrade was not accepted: " + status);
                }
                received.skipBytes(4);
                http1ResponsePending = false;
            }
            reader.readFrame(ctx, received, new Recorder());
            received.discardReadBytes();
        }
    }

    /** Records each frame; acknowledges the server's SETTINGS as a client must. */
    private final class Recorder extends Http2FrameAdapter {
        @Override
        public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding,
                boolean endOfStream) {
            frames.add(new Frame("DATA", streamId, 0, null, data.toString(StandardCharsets.US_ASCII)));
            return data.readableBytes() + padding;
        }

        @Override
        public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding,
                boolean endOfStream) {
            frames.add(new Frame("HEADERS", streamId, 0, headers, null));
        }

        @Override
        public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int dependency,
                short weight, boolean exclusive, int padding, boolean endOfStream) {
            onHeadersRead(ctx, streamId, headers, padding, endOfStream);
        }

        @Override
        public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
            frames.add(new Frame("RST_STREAM", streamId, errorCode, null, null));
        }

        @Override
        public void onGoAwayRead(ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {
            frames.add(new Frame("GOAWAY", 0, errorCode, null, debugData.toString(StandardCharsets.US_ASCII)));
        }

        @Override
        public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) {
            if (prefaceWritten) {
                writer.writeSettingsAck(ctx, ctx.newPromise());
            } else {
                settingsToAcknowledge++;
            }
        }
    }

    /** The stream error or connection error code as Netty names it, for messages. */
    static String name(long errorCode) {
        Http2Error error = Http2Error.valueOf(errorCode);
        return error == null ? Long.toString(errorCode) : error.name();
    }

    private static synchronized SslContext serverTls() {
        if (serverTls == null) {
            serverTls = buildServerTls();
        }
        return serverTls;
    }

    private static synchronized SslContext clientTls() {
        if (clientTls == null) {
            try {
                clientTls = SslContextBuilder.forClient().trustManager(InsecureTrustManagerFactory.INSTANCE)
                        .applicationProtocolConfig(alpn()).build();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return clientTls;
    }

    private static ApplicationProtocolConfig alpn() {
        return new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, ApplicationProtocolNames.HTTP_2);
    }

    /** A self-signed EC certificate made by the JDK's keytool (the JDK has no API for one). */
    private static SslContext buildServerTls() {
        try {
            Path dir = Files.createTempDirectory("h2-wire-tls");
            Path store = dir.resolve("server.p12");
            Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                    "-genkeypair", "-keyalg", "EC", "-groupname", "secp256r1", "-alias", "server", "-dname",
                    "CN=localhost", "-validity", "2", "-storetype", "PKCS12", "-keystore", store.toString(),
                    "-storepass", "secret", "-keypass", "secret").redirectErrorStream(true).start();
            String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
                throw new IllegalStateException("keytool failed: " + output);
            }
            KeyStore keys = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(store)) {
                keys.load(in, "secret".toCharArray());
            }
            Files.delete(store);
            Files.delete(dir);
            KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            factory.init(keys, "secret".toCharArray());
            return SslContextBuilder.forServer(factory).applicationProtocolConfig(alpn()).build();
        } catch (Exception e) {
            throw new IllegalStateException("no test certificate", e);
        }
    }
}
