/*
 * The MUSTs of RFC 9113 that a server answers with a stream or connection error (accept → parse), held on
 * the wire: each claim is named after its section, sends what the section forbids over TLS (ALPN h2), h2c
 * prior knowledge and the h2c upgrade, and checks the error, that the app never saw the bad request, and
 * that the server goes on serving another stream (after a stream error) or connection (after a connection
 * error).
 */
package dev.pumaplus.protocol.h2;

import static dev.pumaplus.protocol.h2.H2WireClient.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pumaplus.protocol.h2.H2WireClient.Frame;
import dev.pumaplus.protocol.h2.H2WireClient.Transport;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@Timeout(value = 20, unit = TimeUnit.SECONDS)
class H2ConformanceTest {

    private final AnsweringQueue queue = new AnsweringQueue();
    private final H2Connections connections = new H2Connections(queue,
            new H2Config(100, 112 * 1024, 200, 30, 0, 0, 0, 0), null);
    private H2WireClient client;

    @AfterEach
    void closeClient() {
        if (client != null) {
            client.close();
        }
    }

    private H2WireClient connect(Transport transport) {
        client = new H2WireClient(connections, transport, true);
        return client;
    }

    // ---- 3.5 HTTP/2 Connection Preface ----

    @ParameterizedTest
    @EnumSource(Transport.class)
    void section3_5_anInvalidConnectionPrefaceIsAConnectionErrorProtocolError(Transport transport) {
        client = new H2WireClient(connections, transport, false);
        client.send(Unpooled.copiedBuffer("PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n", StandardCharsets.US_ASCII));
        client.exchange();
        assertConnectionError(Http2Error.PROTOCOL_ERROR, transport);
    }

    // ---- 5.1 Stream States ----

    @ParameterizedTest
    @EnumSource(Transport.class)
    void section5_1_dataOnAHalfClosedRemoteStreamIsAStreamErrorStreamClosed(Transport transport) {
        connect(transport);
        int stream = client.newStreamId();
        client.headers(stream, request("GET", "/ended"), true);
        client.data(stream, "late", true);
        client.exchange();
        assertStreamError(stream, Http2Error.STREAM_CLOSED);
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void section5_1_headersOnAHalfClosedRemoteStreamIsAStreamErrorStreamClosed(Transport transport) {
        connect(transport);
        int stream = client.newStreamId();
        client.headers(stream, request("GET", "/ended"), true);
        client.headers(stream, request("GET", "/again"), true);
        client.exchange();
        assertStreamError(stream, Http2Error.STREAM_CLOSED);
        assertFalse(queue.targets.contains("/again"), "the second HEADERS reached the app");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void section5_1_headersOnAClosedStreamIsAConnectionErrorStreamClosed(Transport transport) {
        connect(transport);
        int stream = client.newStreamId();
        client.headers(stream, request("GET", "/answered"), true);
        client.exchange();
        assertServed(stream);
        client.headers(stream, request("GET", "/again"), true);
        client.exchange();
        assertConnectionError(Http2Error.STREAM_CLOSED, transport);
        assertFalse(queue.targets.contains("/again"), "HEADERS on a closed stream reached the app");
    }

    // ---- 5.1.1 Stream Identifiers ----

    @ParameterizedTest
    @EnumSource(Transport.class)
    void section5_1_1_aStreamIdSmallerThanAPreviousOneIsAConnectionErrorProtocolError(Transport transport) {
        connect(transport);
        int skipped = client.newStreamId();
        int opened = client.newStreamId();
        client.headers(opened, request("GET", "/higher"), true);
        client.headers(skipped, request("GET", "/lower"), true);
        client.exchange();
        assertConnectionError(Http2Error.PROTOCOL_ERROR, transport);
        assertFalse(queue.targets.contains("/lower"), "a stream opened out of order reached the app");
    }

    // ---- 6.1 DATA ----

    @ParameterizedTest
    @EnumSource(Transport.class)
    void section6_1_dataOnAStreamNotOpenIsAStreamErrorStreamClosed(Transport transport) {
        connect(transport);
        int stream = client.newStreamId();
        client.headers(stream, request("POST", "/no-body"), true);
        client.data(stream, "test", true);
        client.exchange();
        assertStreamError(stream, Http2Error.STREAM_CLOSED);
    }

    // ---- 6.3 PRIORITY ----

    @ParameterizedTest
    @EnumSource(Transport.class)
    void section6_3_aPriorityFrameOfLengthOtherThan5IsAStreamErrorFrameSizeError(Transport transport) {
        connect(transport);
        int stream = client.newStreamId();
        client.headers(stream, request("POST", "/upload"), false);
        client.rawFrame(0x2, 0, stream, new byte[] {(byte) 0x80, 0, 0, 1});
        client.exchange();
        assertStreamError(stream, Http2Error.FRAME_SIZE_ERROR);
        assertFalse(queue.targets.contains("/upload"), "the stream's request reached the app");
    }

    // ---- 6.9 WINDOW_UPDATE ----

    @ParameterizedTest
    @EnumSource(Transport.class)
    void section6_9_aWindowUpdateOfZeroOnAStreamIsAStreamErrorProtocolError(Transport transport) {
        connect(transport);
        int stream = client.newStreamId();
        client.headers(stream, request("POST", "/upload"), false);
        client.windowUpdate(stream, 0);
        client.exchange();
        assertStreamError(stream, Http2Error.PROTOCOL_ERROR);
        assertFalse(queue.targets.contains("/upload"), "the stream's request reached the app");
    }

    // ---- 6.9.1 The Flow-Control Window ----

    @ParameterizedTest
    @EnumSource(Transport.class)
    void section6_9_1_aStreamWindowAbove2To31Minus1IsAStreamErrorFlowControlError(Transport transport) {
        connect(transport);
        int stream = client.newStreamId();
        client.headers(stream, request("POST", "/upload"), false);
        client.windowUpdate(stream, Integer.MAX_VALUE);
        client.windowUpdate(stream, Integer.MAX_VALUE);
        client.exchange();
        assertStreamError(stream, Http2Error.FLOW_CONTROL_ERROR);
        assertFalse(queue.targets.contains("/upload"), "the stream's request reached the app");
    }

    // ---- 8.1 HTTP Request/Response Exchange ----

    @ParameterizedTest
    @EnumSource(Transport.class)
    void section8_1_aSecondHeadersWithoutEndStreamIsAStreamErrorProtocolError(Transport transport) {
        connect(transport);
        int stream = client.newStreamId();
        client.headers(stream, request("POST", "/upload"), false);
        client.data(stream, "test", false);
        client.headers(stream, new DefaultHttp2Headers().add("x-test", "ok"), false);
        client.exchange();
        assertStreamError(stream, Http2Error.PROTOCOL_ERROR);
        assertFalse(queue.targets.contains("/upload"), "the stream's request reached the app");
    }

    // ---- 8.1.2.1 Pseudo-Header Fields (RFC 9113 8.3) ----

    @ParameterizedTest
    @EnumSource(Transport.class)
    void section8_1_2_1_aPseudoHeaderFieldInTrailersIsAStreamErrorProtocolError(Transport transport) {
        connect(transport);
        int stream = client.newStreamId();
        client.headers(stream, request("POST", "/upload"), false);
        client.data(stream, "test", false);
        client.headers(stream, new DefaultHttp2Headers().method("POST"), true);
        client.exchange();
        assertStreamError(stream, Http2Error.PROTOCOL_ERROR);
        assertFalse(queue.targets.contains("/upload"), "the stream's request reached the app");
    }

    // ---- 8.1.2.3 Request Pseudo-Header Fields (RFC 9113 8.3.1) ----

    @ParameterizedTest
    @EnumSource(Transport.class)
    void section8_1_2_3_aRequestWithoutSchemeIsAStreamErrorProtocolError(Transport transport) {
        connect(transport);
        int stream = client.newStreamId();
        Http2Headers noScheme = request("GET", "/no-scheme");
        noScheme.remove(":scheme");
        client.headers(stream, noScheme, true);
        client.exchange();
        assertStreamError(stream, Http2Error.PROTOCOL_ERROR);
        assertFalse(queue.targets.contains("/no-scheme"), "a request without :scheme reached the app");
    }

    // ---- 8.1.2.6 Malformed Requests and Responses (RFC 9113 8.1.1) ----

    @ParameterizedTest
    @EnumSource(Transport.class)
    void section8_1_2_6_aContentLengthBelowOneDataFrameIsAStreamErrorProtocolError(Transport transport) {
        assertUploadRefused(transport, 1, "a body longer than its content-length reached the app", "test");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void section8_1_2_6_aContentLengthBelowTheSumOfDataFramesIsAStreamErrorProtocolError(Transport transport) {
        assertUploadRefused(transport, 1, "a body longer than its content-length reached the app", "test", "test");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void section8_1_2_6_aContentLengthAboveTheDataReceivedIsAStreamErrorProtocolError(Transport transport) {
        assertUploadRefused(transport, 8, "a body shorter than its content-length reached the app", "test");
    }

    /**
     * A POST declaring {@code contentLength} whose body comes as {@code dataFrames} (the last with
     * END_STREAM): reset with PROTOCOL_ERROR, and never reaching the app.
     */
    private void assertUploadRefused(Transport transport, int contentLength, String reachedApp, String... dataFrames) {
        connect(transport);
        int stream = client.newStreamId();
        client.headers(stream, request("POST", "/upload").add("content-length", String.valueOf(contentLength)), false);
        for (int i = 0; i < dataFrames.length; i++) {
            client.data(stream, dataFrames[i], i == dataFrames.length - 1);
        }
        client.exchange();
        assertStreamError(stream, Http2Error.PROTOCOL_ERROR);
        assertFalse(queue.targets.contains("/upload"), reachedApp);
    }

    // ---- what the claims check ----

    /**
     * RST_STREAM with {@code error} on {@code stream} first (a frame the client had already sent on it may
     * draw Netty's STREAM_CLOSED after that); the connection stays and serves a new stream.
     */
    private void assertStreamError(int stream, Http2Error error) {
        List<Frame> resets = client.frames().stream().filter(f -> f.type().equals("RST_STREAM")).toList();
        assertFalse(resets.isEmpty(), "no RST_STREAM; frames: " + client.frames());
        assertEquals(error.name(), H2WireClient.name(resets.get(0).errorCode()),
                "the first RST_STREAM's code; frames: " + client.frames());
        assertTrue(resets.stream().allMatch(f -> f.streamId() == stream), "resets of other streams: " + resets);
        assertTrue(client.frames().stream().noneMatch(f -> f.type().equals("GOAWAY")), "GOAWAY: " + client.frames());
        assertFalse(client.closed(), "a stream error closed the connection");
        int next = client.newStreamId();
        client.headers(next, request("GET", "/next"), true);
        client.exchange();
        assertServed(next);
    }

    /** GOAWAY with {@code error}, the connection closed; a new connection is served. */
    private void assertConnectionError(Http2Error error, Transport transport) {
        List<String> goAways = client.frames().stream().filter(f -> f.type().equals("GOAWAY"))
                .map(f -> H2WireClient.name(f.errorCode())).toList();
        assertEquals(List.of(error.name()), goAways, "GOAWAY codes; frames: " + client.frames());
        assertTrue(client.closed(), "the connection is still open after GOAWAY");
        try (H2WireClient next = new H2WireClient(connections, transport, true)) {
            int stream = next.newStreamId();
            next.headers(stream, request("GET", "/next"), true);
            next.exchange();
            assertTrue(next.frames().stream().anyMatch(f -> f.type().equals("DATA") && f.streamId() == stream
                    && f.data().equals("hello\n")), "a new connection was not served: " + next.frames());
        }
    }

    /** The stream was answered 200 "hello" (by the app). */
    private void assertServed(int stream) {
        assertTrue(client.frames().stream().anyMatch(f -> f.type().equals("HEADERS") && f.streamId() == stream
                && "200".contentEquals(f.headers().status())), "stream " + stream + " not answered: " + client.frames());
        assertTrue(client.frames().stream().anyMatch(f -> f.type().equals("DATA") && f.streamId() == stream
                && f.data().equals("hello\n")), "stream " + stream + " has no body: " + client.frames());
    }
}
