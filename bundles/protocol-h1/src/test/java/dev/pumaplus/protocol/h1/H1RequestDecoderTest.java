/*
 * Claims about the parse step (accept → parse → queue → ...) of HTTP/1.x: every MUST of RFC 9112 about a
 * request's framing and syntax, each a case named by its section, sent through the real decoder and
 * connection handler on an EmbeddedChannel, on HTTP/1.0 and HTTP/1.1 alike; and the requests that must
 * still be accepted, so that strictness cannot pass by refusing everything.
 */
package dev.pumaplus.protocol.h1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pumaplus.spi.RequestHead;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeadersFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class H1RequestDecoderTest {

    /** A refused request: {@code V} in the bytes stands for the version, and the case runs on each of them. */
    private record Refused(String name, String request, int status, List<String> versions) {
    }

    private static final List<String> BOTH = List.of("HTTP/1.0", "HTTP/1.1");
    private static final List<String> V11 = List.of("HTTP/1.1");
    private static final List<String> V10 = List.of("HTTP/1.0");

    private static Refused both(String name, String request, int status) {
        return new Refused(name, request, status, BOTH);
    }

    private static final String H = "Host: a.example\r\n";

    private static final List<Refused> REFUSED = List.of(
            // §6: message body framing
            both("RFC 9112 §6.3 / RFC 9110 §8.6: two Content-Length fields with different values",
                    "POST / V\r\n" + H + "Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", 400),
            both("RFC 9112 §6.3 / RFC 9110 §8.6: two Content-Length fields with the same value",
                    "POST / V\r\n" + H + "Content-Length: 5\r\nContent-Length: 5\r\n\r\nhello", 400),
            both("RFC 9112 §6.3 / RFC 9110 §8.6: a Content-Length list with different values",
                    "POST / V\r\n" + H + "Content-Length: 5, 6\r\n\r\nhello!", 400),
            both("RFC 9112 §6.3 / RFC 9110 §8.6: a Content-Length list with the same value",
                    "POST / V\r\n" + H + "Content-Length: 5,5\r\n\r\nhello", 400),
            both("RFC 9110 §8.6: Content-Length with a plus sign",
                    "POST / V\r\n" + H + "Content-Length: +5\r\n\r\nhello", 400),
            both("RFC 9110 §8.6: Content-Length with a minus sign",
                    "POST / V\r\n" + H + "Content-Length: -1\r\n\r\n", 400),
            both("RFC 9110 §8.6: Content-Length with letters",
                    "POST / V\r\n" + H + "Content-Length: 12abc\r\n\r\n", 400),
            both("RFC 9110 §8.6: Content-Length in hex",
                    "POST / V\r\n" + H + "Content-Length: 0x10\r\n\r\n", 400),
            both("RFC 9110 §8.6: Content-Length with inner whitespace",
                    "POST / V\r\n" + H + "Content-Length: 1 2\r\n\r\n", 400),
            both("RFC 9110 §8.6: empty Content-Length",
                    "POST / V\r\n" + H + "Content-Length: \r\n\r\n", 400),
            both("RFC 9110 §8.6: Content-Length that overflows 64 bits",
                    "POST / V\r\n" + H + "Content-Length: 99999999999999999999\r\n\r\n", 400),
            new Refused("RFC 9112 §6.1: Transfer-Encoding on HTTP/1.0",
                    "POST / V\r\n" + H + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 400, V10),
            both("RFC 9112 §6.1 / §6.3: Transfer-Encoding beside Content-Length",
                    "POST / V\r\n" + H + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
            new Refused("RFC 9112 §6.3: Transfer-Encoding whose final coding is not chunked",
                    "POST / V\r\n" + H + "Transfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n", 400, V11),
            new Refused("RFC 9112 §6.3: Transfer-Encoding without chunked",
                    "POST / V\r\n" + H + "Transfer-Encoding: gzip\r\n\r\nGET /smuggled V\r\n" + H + "\r\n", 400, V11),
            new Refused("RFC 9112 §6.3: Transfer-Encoding with no coding",
                    "POST / V\r\n" + H + "Transfer-Encoding: \r\n\r\n", 400, V11),
            new Refused("RFC 9112 §6.3: an unknown coding after chunked in a second field",
                    "POST / V\r\n" + H + "Transfer-Encoding: chunked\r\nTransfer-Encoding: x\r\n\r\n", 400, V11),
            new Refused("RFC 9112 §7: chunked applied twice",
                    "POST / V\r\n" + H + "Transfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n", 400, V11),
            new Refused("RFC 9112 §6.1: a transfer coding the server does not decode is 501",
                    "POST / V\r\n" + H + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501, V11),
            new Refused("RFC 9112 §7.1: chunk size that is not hex",
                    "POST / V\r\n" + H + "Transfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n", 400, V11),
            new Refused("RFC 9112 §7.1: whitespace before the chunk size",
                    "POST / V\r\n" + H + "Transfer-Encoding: chunked\r\n\r\n 5\r\nhello\r\n0\r\n\r\n", 400, V11),
            new Refused("RFC 9112 §7.1: chunk size followed by whitespace and no extension",
                    "POST / V\r\n" + H + "Transfer-Encoding: chunked\r\n\r\n5 x\r\nhello\r\n0\r\n\r\n", 400, V11),
            new Refused("RFC 9112 §7.1: chunk size that overflows",
                    "POST / V\r\n" + H + "Transfer-Encoding: chunked\r\n\r\nffffffffff\r\nhello\r\n0\r\n\r\n", 400, V11),
            new Refused("RFC 9112 §7.1: chunk data not followed by CRLF",
                    "POST / V\r\n" + H + "Transfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n", 400, V11),
            new Refused("RFC 9112 §2.2 / §7.1: chunk-size line ended by a bare LF",
                    "POST / V\r\n" + H + "Transfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n", 400, V11),
            // §3.2: Host
            new Refused("RFC 9112 §3.2: HTTP/1.1 request without Host", "GET / V\r\nAccept: */*\r\n\r\n", 400, V11),
            both("RFC 9112 §3.2: two Host fields", "GET / V\r\nHost: a.example\r\nHost: b.example\r\n\r\n", 400),
            both("RFC 9112 §3.2: two equal Host fields", "GET / V\r\nHost: a.example\r\nHost: a.example\r\n\r\n", 400),
            both("RFC 9112 §3.2: Host with a path", "GET / V\r\nHost: a.example/p\r\n\r\n", 400),
            both("RFC 9112 §3.2: Host with userinfo", "GET / V\r\nHost: u@a.example\r\n\r\n", 400),
            both("RFC 9112 §3.2: Host with inner whitespace", "GET / V\r\nHost: a .example\r\n\r\n", 400),
            both("RFC 9112 §3.2: Host with a comma list", "GET / V\r\nHost: a.example, b.example\r\n\r\n", 400),
            both("RFC 9112 §3.2: Host with a bad port", "GET / V\r\nHost: a.example:8o\r\n\r\n", 400),
            both("RFC 9112 §3.2: Host with a port over 65535", "GET / V\r\nHost: a.example:65536\r\n\r\n", 400),
            both("RFC 9112 §3.2: Host with a port and no host", "GET / V\r\nHost: :80\r\n\r\n", 400),
            both("RFC 9112 §3.2: Host with a bad percent escape", "GET / V\r\nHost: a%zz\r\n\r\n", 400),
            both("RFC 9112 §3.2: Host with an unclosed IPv6 literal", "GET / V\r\nHost: [::1\r\n\r\n", 400),
            both("RFC 9112 §3.2: Host with a malformed IPv6 literal", "GET / V\r\nHost: [1:::2]\r\n\r\n", 400),
            both("RFC 9112 §3.2: Host with too many IPv6 pieces", "GET / V\r\nHost: [1:2:3:4:5:6:7:8:9]\r\n\r\n", 400),
            // §3: request line
            both("RFC 9112 §3: two SPs after the method", "GET  / V\r\n" + H + "\r\n", 400),
            both("RFC 9112 §3: HTAB as a separator", "GET\t/ V\r\n" + H + "\r\n", 400),
            both("RFC 9112 §3: whitespace before the method", " GET / V\r\n" + H + "\r\n", 400),
            both("RFC 9112 §3: whitespace after the version", "GET / V \r\n" + H + "\r\n", 400),
            both("RFC 9112 §3 / §2.2: a bare CR as a separator", "GET\r/ V\r\n" + H + "\r\n", 400),
            both("RFC 9112 §3: request line without a version", "GET /\r\n" + H + "\r\n", 400),
            both("RFC 9112 §3.1: method that is not a token", "GE(T / V\r\n" + H + "\r\n", 400),
            both("RFC 9112 §3.1: method with a NUL", "GE\0T / V\r\n" + H + "\r\n", 400),
            new Refused("RFC 9112 §2.3: lower-case http version", "GET / http/1.1\r\n" + H + "\r\n", 400, V11),
            new Refused("RFC 9112 §2.3: version with two minor digits", "GET / HTTP/1.10\r\n" + H + "\r\n", 400, V11),
            new Refused("RFC 9112 §2.3: version without a minor", "GET / HTTP/1\r\n" + H + "\r\n", 400, V11),
            new Refused("RFC 9112 §2.3: version that is not HTTP", "GET / FOO/1.1\r\n" + H + "\r\n", 400, V11),
            new Refused("RFC 9110 §15.6.6: HTTP/1.2 is answered 505", "GET / HTTP/1.2\r\n" + H + "\r\n", 505, V11),
            new Refused("RFC 9110 §15.6.6: HTTP/2.0 is answered 505", "GET / HTTP/2.0\r\n" + H + "\r\n", 505, V11),
            new Refused("RFC 9110 §15.6.6: HTTP/0.9 is answered 505", "GET / HTTP/0.9\r\n" + H + "\r\n", 505, V11),
            both("RFC 9112 §3: request target over the limit is 414",
                    "GET /" + "a".repeat(H1Limits.MAX_TARGET_BYTES) + " V\r\n" + H + "\r\n", 414),
            both("RFC 9112 §3: request line that never ends is 414 as soon as it is too long",
                    "GET /" + "a".repeat(H1Limits.MAX_REQUEST_LINE_BYTES + 10), 414),
            // §3.2: request target
            both("RFC 9112 §3.2: NUL in the target", "GET /a\0b V\r\n" + H + "\r\n", 400),
            both("RFC 9112 §3.2: a control byte in the target", "GET /a\u0001b V\r\n" + H + "\r\n", 400),
            both("RFC 9112 §3.2: DEL in the target", "GET /a\u007fb V\r\n" + H + "\r\n", 400),
            both("RFC 9112 §3.2: HTAB in the target", "GET /a\tb V\r\n" + H + "\r\n", 400),
            both("RFC 9112 §3.2: SP in the target", "GET /a b V\r\n" + H + "\r\n", 400),
            both("RFC 9112 §3.2: a byte above 0x7F in the target", "GET /caf\u00e9 V\r\n" + H + "\r\n", 400),
            both("RFC 9112 §3.2: a double quote in the target", "GET /a\"b V\r\n" + H + "\r\n", 400),
            both("RFC 9112 §3.2: angle brackets in the target", "GET /<a> V\r\n" + H + "\r\n", 400),
            both("RFC 9112 §3.2: a fragment in the target", "GET /a#b V\r\n" + H + "\r\n", 400),
            both("RFC 9112 §3.2: a target in no form", "GET a V\r\n" + H + "\r\n", 400),
            both("RFC 9112 §3.2.3: authority-form (a proxy's CONNECT)", "CONNECT a.example:443 V\r\n" + H + "\r\n", 400),
            both("RFC 9112 §3.2.4: asterisk-form on a method other than OPTIONS", "GET * V\r\n" + H + "\r\n", 400),
            both("RFC 9112 §3.2.2: absolute-form with a scheme other than http(s)", "GET ftp://a.example/ V\r\n" + H + "\r\n", 400),
            both("RFC 9110 §4.2.4: absolute-form with userinfo", "GET http://u:p@a.example/ V\r\n" + H + "\r\n", 400),
            both("RFC 9110 §4.2.1: absolute-form with an empty host", "GET http:///p V\r\n" + H + "\r\n", 400),
            both("RFC 9110 §4.2.1: absolute-form with an invalid host", "GET http://a%/p V\r\n" + H + "\r\n", 400),
            // §2.2, §5: field lines
            both("RFC 9112 §2.2: bare LF ending the request line", "GET / V\n" + H + "\r\n", 400),
            both("RFC 9112 §2.2: bare LF ending a field line", "GET / V\r\n" + H + "X: y\n\r\n", 400),
            both("RFC 9112 §2.2: bare LF ending the header section", "GET / V\r\n" + H + "\n", 400),
            both("RFC 9112 §2.2: bare CR in a field value", "GET / V\r\n" + H + "X: a\rb\r\n\r\n", 400),
            both("RFC 9112 §2.2: bare LF before the request line", "\nGET / V\r\n" + H + "\r\n", 400),
            both("RFC 9112 §2.2: whitespace before the first field line", "GET / V\r\n " + H + "\r\n", 400),
            both("RFC 9112 §5.2: obs-fold", "GET / V\r\n" + H + "X: a\r\n b\r\n\r\n", 400),
            both("RFC 9112 §5.2: obs-fold with HTAB", "GET / V\r\n" + H + "X: a\r\n\tb\r\n\r\n", 400),
            both("RFC 9112 §5.1: SP between field name and colon", "GET / V\r\n" + H + "X-A : b\r\n\r\n", 400),
            both("RFC 9112 §5.1: HTAB between field name and colon", "GET / V\r\n" + H + "X-A\t: b\r\n\r\n", 400),
            both("RFC 9112 §5.1: SP between Content-Length and colon",
                    "POST / V\r\n" + H + "Content-Length : 5\r\n\r\nhello", 400),
            both("RFC 9110 §5.1: field name that is not a token", "GET / V\r\n" + H + "X(a): b\r\n\r\n", 400),
            both("RFC 9110 §5.1: empty field name", "GET / V\r\n" + H + ": b\r\n\r\n", 400),
            both("RFC 9112 §5: field line without a colon", "GET / V\r\n" + H + "Garbage\r\n\r\n", 400),
            both("RFC 9110 §5.5: NUL in a field value", "GET / V\r\n" + H + "X: a\0b\r\n\r\n", 400),
            both("RFC 9110 §5.5: DEL in a field value", "GET / V\r\n" + H + "X: a\u007fb\r\n\r\n", 400),
            both("RFC 6585 §5: header section over the limit is 431",
                    "GET / V\r\n" + H + ("X-Pad: " + "p".repeat(1000) + "\r\n").repeat(H1Limits.MAX_HEADER_BYTES / 1000 + 1)
                            + "\r\n", 431));

    private RecordingQueue queue;
    private EmbeddedChannel channel;

    private void open() {
        queue = new RecordingQueue();
        H1RequestDecoder decoder = new H1RequestDecoder(false);
        channel = new EmbeddedChannel(decoder, new H1ConnectionHandler(queue, new H1Config(-1, 30, 20, 10, 10, -1, 16), decoder, null));
    }

    @AfterEach
    void closeChannel() {
        if (channel != null) {
            channel.finishAndReleaseAll();
        }
    }

    private void send(String s) {
        ClientBytes.send(channel, s);
    }

    private String output() {
        return ClientBytes.output(channel);
    }

    /** Each refused case on each of its versions, alone and with a valid request pipelined behind it. */
    @TestFactory
    Stream<DynamicTest> everyViolationIsAnsweredWithItsStatusAndClosesWithoutReachingTheQueue() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Refused c : REFUSED) {
            for (String version : c.versions()) {
                String request = c.request().replace(" V\r\n", " " + version + "\r\n").replace(" V\n", " " + version + "\n")
                        .replace(" V \r\n", " " + version + " \r\n");
                String pipelined = "GET /next HTTP/1.1\r\nHost: a.example\r\n\r\n";
                // Surefire's report names a dynamic test by its index: every message names the case as well.
                String label = c.name() + " [" + version + "]: ";
                tests.add(DynamicTest.dynamicTest(label, () -> {
                    open();
                    // The valid request behind the bad one arrives in the same read: it must never be parsed.
                    send(request + pipelined);
                    String out = output();
                    assertTrue(out.startsWith("HTTP/1.1 " + c.status() + " "),
                            label + out.lines().findFirst().orElse("(nothing)"));
                    assertTrue(out.contains("Connection: close\r\n"), label + out);
                    assertEquals(1, out.split("HTTP/1.1 ", -1).length - 1, label + "exactly one response: " + out);
                    assertEquals(0, queue.submitted.size(), label + "never submitted, nor the request behind it");
                    assertFalse(channel.isOpen(), label + "the connection closes after the answer");
                }));
            }
        }
        return tests.stream();
    }

    private RequestHead accepted(String request) {
        open();
        send(request);
        assertEquals(1, queue.submitted.size(), () -> "accepted and submitted: " + output());
        return queue.submitted.get(0).head;
    }

    private static String header(RequestHead head, String name) {
        return head.headers().stream().filter(h -> h.getKey().equalsIgnoreCase(name)).map(Map.Entry::getValue)
                .reduce((a, b) -> a + "|" + b).orElse(null);
    }

    @Test
    void http10WithoutHostIsAccepted() {
        assertEquals(null, header(accepted("GET / HTTP/1.0\r\n\r\n"), "Host"));
    }

    @Test
    void absoluteFormAuthorityReplacesTheHostValueAsRfc9112Section322Says() {
        RequestHead head = accepted("GET http://a.example:8080/p?q=1 HTTP/1.1\r\nHost: other.example\r\nX: y\r\n\r\n");
        assertEquals("http://a.example:8080/p?q=1", head.target());
        assertEquals("a.example:8080", header(head, "Host"));
        assertEquals(List.of(Map.entry("Host", "a.example:8080"), Map.entry("X", "y")), head.headers());
    }

    @Test
    void absoluteFormAuthorityBecomesTheHostOfAnHttp10RequestWithoutOne() {
        RequestHead head = accepted("GET HTTPS://[::1]:8443 HTTP/1.0\r\nX: y\r\n\r\n");
        assertEquals(List.of(Map.entry("Host", "[::1]:8443"), Map.entry("X", "y")), head.headers());
    }

    @Test
    void emptyLinesBeforeTheRequestLineAreIgnored() {
        assertEquals("/after", accepted("\r\n\r\nGET /after HTTP/1.1\r\nHost: a\r\n\r\n").target());
    }

    @Test
    void targetMayCarryTheCharactersBrowsersLeaveUnencoded() {
        String target = "/s/a|b[0]?q={x}|y^`[1]\\&p=100%&e=%C3%A9&s=!$'()*+,;=:@/?~";
        assertEquals(target, accepted("GET " + target + " HTTP/1.1\r\nHost: a\r\n\r\n").target());
    }

    @Test
    void asteriskFormIsAcceptedForOptions() {
        assertEquals("*", accepted("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n").target());
    }

    @Test
    void anyTokenIsAMethod() {
        assertEquals("PURGE~1", accepted("PURGE~1 / HTTP/1.1\r\nHost: a\r\n\r\n").method());
    }

    @Test
    void validHostValuesAreAccepted() {
        for (String host : List.of("a.example", "a.example:8080", "127.0.0.1:1", "[::1]", "[2001:db8::7]:443",
                "[::ffff:192.0.2.1]", "[1:2:3:4:5:6:7:8]", "[v7.a:b]", "xn--caf-dma.example", "a_b.example",
                "a%2Db", "a.example:", "")) {
            assertEquals(host, header(accepted("GET / HTTP/1.1\r\nHost: " + host + "\r\n\r\n"), "Host"), host);
            closeChannel();
        }
    }

    @Test
    void fieldValuesMayHoldHtabAndObsText() {
        assertEquals("a\tb \u00e9\u00ff", header(accepted("GET / HTTP/1.1\r\nHost: a\r\nX:\t a\tb \u00e9\u00ff \r\n\r\n"), "X"));
    }

    @Test
    void contentLengthWithLeadingZerosFramesTheBody() {
        accepted("POST / HTTP/1.0\r\nContent-Length: 005\r\n\r\nhello");
        assertEquals("hello", queue.submitted.get(0).body());
    }

    @Test
    void chunkedInAnyCaseWithAnEmptyListElementFramesTheBody() {
        accepted("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: , Chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
        assertEquals("hello", queue.submitted.get(0).body());
    }

    @Test
    void chunkExtensionsWithBwsAreIgnoredAsRfc9112Section711Says() {
        accepted("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5 ;a=\"b\"\r\nhello\r\n2;x\r\n, \r\n0\r\n\r\n");
        assertEquals("hello, ", queue.submitted.get(0).body());
    }

    @Test
    void aHeadTricklingInOneByteAtATimeIsCheckedAndAccepted() {
        open();
        String request = "POST /t HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nhi";
        for (char c : request.toCharArray()) {
            send(String.valueOf(c));
        }
        assertEquals(1, queue.submitted.size());
        assertEquals("hi", queue.submitted.get(0).body());
    }

    @Test
    void http10KeepAliveRequestsAfterAValidOneAreEachCheckedAgain() {
        open();
        send("GET /1 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
                + "POST /2 HTTP/1.0\r\nContent-Length: 1\r\nContent-Length: 30\r\n\r\nX"
                + "GET /smuggled HTTP/1.0\r\n\r\n");
        assertEquals(1, queue.submitted.size(), "only the first request is taken");
        assertEquals("/1", queue.submitted.get(0).head.target());
        queue.submitted.get(0).sink.head(200, List.of(Map.entry("Content-Length", "2")), false);
        queue.submitted.get(0).sink.body(Unpooled.copiedBuffer("ok", StandardCharsets.ISO_8859_1), true);
        String out = output();
        assertTrue(out.startsWith("HTTP/1.0 200 OK\r\n"), out);
        assertTrue(out.contains("HTTP/1.1 400 Bad Request\r\n"), out);
        assertFalse(out.contains("smuggled"), out);
        assertFalse(channel.isOpen());
    }

    @Test
    void everyNettyDecoderSettingIsOurs() {
        HttpDecoderConfig config = H1RequestDecoder.config();
        assertEquals(H1Limits.MAX_REQUEST_LINE_BYTES, config.getMaxInitialLineLength());
        assertEquals(H1Limits.MAX_HEADER_BYTES, config.getMaxHeaderSize());
        assertEquals(H1Limits.MAX_CHUNK_BYTES, config.getMaxChunkSize());
        assertEquals(H1Limits.INITIAL_LINE_BUFFER_BYTES, config.getInitialBufferSize());
        assertTrue(config.isChunkedSupported());
        assertTrue(config.isAllowPartialChunks());
        assertFalse(config.isAllowDuplicateContentLengths());
        assertTrue(config.isStrictLineParsing());
        for (HttpHeadersFactory factory : List.of(config.getHeadersFactory(), config.getTrailersFactory())) {
            DefaultHttpHeadersFactory validating = (DefaultHttpHeadersFactory) factory;
            assertTrue(validating.isValidatingHeaderNames() && validating.isValidatingHeaderValues());
        }
    }
}
