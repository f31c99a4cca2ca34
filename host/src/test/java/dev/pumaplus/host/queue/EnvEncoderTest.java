/*
 * Claims about the Rack env the host builds from a parsed request (docs/PROTOCOL.md, "The env pair
 * list"): order, CGI variables, header folding, and the spoofing guard.
 */
package dev.pumaplus.host.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.pumaplus.spi.RequestHead;
import dev.pumaplus.wire.Request;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(5)
class EnvEncoderTest {

    private static RequestHead head(String method, String target, String scheme, List<Map.Entry<String, String>> headers) {
        return new RequestHead(method, target, "HTTP/1.1", scheme, new InetSocketAddress("127.0.0.1", 9292),
                new InetSocketAddress("10.0.0.7", 50123), headers, 0, 0);
    }

    /** The env pairs as the worker reads them: the REQUEST payload the host sends, decoded. */
    private static List<Map.Entry<String, String>> pairs(RequestHead head, long requestId,
                                                         List<Map.Entry<String, String>> extraEnv) {
        ByteBuf payload = EnvEncoder.payload(UnpooledByteBufAllocator.DEFAULT, head, requestId, extraEnv);
        try {
            return Request.decode(payload).env();
        } finally {
            payload.release();
        }
    }

    private static List<Map.Entry<String, String>> pairs(RequestHead head, long requestId) {
        return pairs(head, requestId, List.of());
    }

    private static Map<String, String> env(RequestHead head) {
        Map<String, String> env = new LinkedHashMap<>();
        for (Map.Entry<String, String> pair : pairs(head, 42)) {
            env.put(pair.getKey(), pair.getValue());
        }
        return env;
    }

    @Test
    void pairsComeInTheDocumentedOrderAndMatchTheCorpusGet() {
        RequestHead get = new RequestHead("GET", "/hello?a=1&b=%C3%A9", "HTTP/1.1", "http",
                new InetSocketAddress("127.0.0.1", 9292), new InetSocketAddress("127.0.0.1", 40000),
                List.of(Map.entry("Host", "localhost:9292"), Map.entry("Accept", "*/*")), 0, 0);
        List<Map.Entry<String, String>> pairs = pairs(get, 7);
        assertEquals(List.of(
                Map.entry("REQUEST_METHOD", "GET"), Map.entry("SCRIPT_NAME", ""), Map.entry("PATH_INFO", "/hello"),
                Map.entry("QUERY_STRING", "a=1&b=%C3%A9"), Map.entry("SERVER_NAME", "localhost"),
                Map.entry("SERVER_PORT", "9292"), Map.entry("SERVER_PROTOCOL", "HTTP/1.1"),
                Map.entry("REMOTE_ADDR", "127.0.0.1"), Map.entry("rack.url_scheme", "http"),
                Map.entry("HTTP_HOST", "localhost:9292"), Map.entry("HTTP_ACCEPT", "*/*"),
                Map.entry("puma_plus.request_id", "7")), pairs);
    }

    @Test
    void contentTypeAndLengthAreCgiVariablesOnlyAndComeBeforeHttpHeaders() {
        List<Map.Entry<String, String>> pairs = pairs(head("POST", "/rows", "http", List.of(
                Map.entry("Host", "localhost:9292"),
                Map.entry("Content-Type", "application/x-www-form-urlencoded"),
                Map.entry("Content-Length", "11"))), 1);
        List<String> names = pairs.stream().map(Map.Entry::getKey).toList();
        assertEquals(List.of("REQUEST_METHOD", "SCRIPT_NAME", "PATH_INFO", "QUERY_STRING", "SERVER_NAME",
                "SERVER_PORT", "SERVER_PROTOCOL", "REMOTE_ADDR", "rack.url_scheme", "CONTENT_TYPE",
                "CONTENT_LENGTH", "HTTP_HOST", "puma_plus.request_id"), names);
        assertEquals("11", env(head("POST", "/", "http", List.of(Map.entry("content-length", "11")))).get("CONTENT_LENGTH"));
    }

    @Test
    void targetIsSplitAtTheFirstQuestionMarkWithoutDecoding() {
        Map<String, String> env = env(head("GET", "/a%20b/c?x=%2F&y=?z", "http", List.of()));
        assertEquals("/a%20b/c", env.get("PATH_INFO"));
        assertEquals("x=%2F&y=?z", env.get("QUERY_STRING"));
        assertEquals("", env(head("GET", "/plain", "http", List.of())).get("QUERY_STRING"));
    }

    @Test
    void absoluteFormTargetContributesOnlyPathAndQuery() {
        Map<String, String> env = env(head("GET", "http://example.com:8080/p/q?r=1", "http", List.of(Map.entry("Host", "example.com:8080"))));
        assertEquals("/p/q", env.get("PATH_INFO"));
        assertEquals("r=1", env.get("QUERY_STRING"));
        assertEquals("/", env(head("GET", "http://example.com", "http", List.of())).get("PATH_INFO"));
    }

    @Test
    void serverNameAndPortComeFromTheHostHeaderIncludingIpv6Literals() {
        Map<String, String> v6 = env(head("GET", "/", "http", List.of(Map.entry("Host", "[::1]:9292"))));
        assertEquals("[::1]", v6.get("SERVER_NAME"));
        assertEquals("9292", v6.get("SERVER_PORT"));
        Map<String, String> v6NoPort = env(head("GET", "/", "https", List.of(Map.entry("Host", "[2001:db8::2]"))));
        assertEquals("[2001:db8::2]", v6NoPort.get("SERVER_NAME"));
        assertEquals("443", v6NoPort.get("SERVER_PORT"));
        Map<String, String> noPort = env(head("GET", "/", "http", List.of(Map.entry("Host", "example.com"))));
        assertEquals("example.com", noPort.get("SERVER_NAME"));
        assertEquals("80", noPort.get("SERVER_PORT"));
    }

    @Test
    void aSecondHostHeaderIsDroppedSoServerNameAndHttpHostAgree() {
        Map<String, String> env = env(head("GET", "/", "http", List.of(
                Map.entry("Host", "a.example:8080"), Map.entry("host", "b.example"))));
        assertEquals("a.example", env.get("SERVER_NAME"));
        assertEquals("8080", env.get("SERVER_PORT"));
        assertEquals("a.example:8080", env.get("HTTP_HOST"), "never joined with the second value");
    }

    @Test
    void anEmptyPortInHostMeansTheSchemesDefault() {
        Map<String, String> env = env(head("GET", "/", "https", List.of(Map.entry("Host", "a.example:"))));
        assertEquals("a.example", env.get("SERVER_NAME"));
        assertEquals("443", env.get("SERVER_PORT"));
    }

    @Test
    void withoutHostHeaderTheLocalAddressNamesTheServer() {
        Map<String, String> env = env(head("GET", "/", "http", List.of()));
        assertEquals("127.0.0.1", env.get("SERVER_NAME"));
        assertEquals("9292", env.get("SERVER_PORT"));
        RequestHead v6 = new RequestHead("GET", "/", "HTTP/1.0", "http", new InetSocketAddress("::1", 3000),
                new InetSocketAddress("::1", 5555), List.of(), 0, 0);
        Map<String, String> env6 = env(v6);
        assertEquals("[::1]", env6.get("SERVER_NAME"));
        assertEquals("3000", env6.get("SERVER_PORT"));
        assertEquals("::1", env6.get("REMOTE_ADDR"));
    }

    @Test
    void remoteAddrIsTheClientAddress() {
        assertEquals("10.0.0.7", env(head("GET", "/", "http", List.of())).get("REMOTE_ADDR"));
    }

    @Test
    void repeatedHeadersAreJoinedInFirstSeenOrderAndCookiesWithSemicolons() {
        List<Map.Entry<String, String>> pairs = pairs(head("GET", "/", "http", List.of(
                Map.entry("Accept", "text/html"), Map.entry("Cookie", "a=1"), Map.entry("X-Trace", "t"),
                Map.entry("accept", "*/*"), Map.entry("COOKIE", "b=2"))), 1);
        List<Map.Entry<String, String>> http = pairs.stream().filter(p -> p.getKey().startsWith("HTTP_")).toList();
        assertEquals(List.of(Map.entry("HTTP_ACCEPT", "text/html, */*"), Map.entry("HTTP_COOKIE", "a=1; b=2"),
                Map.entry("HTTP_X_TRACE", "t")), http);
    }

    @Test
    void headersWithUnderscoresAreDroppedSoTheyCannotSpoofDashedOnes() {
        Map<String, String> env = env(head("GET", "/", "http", List.of(
                Map.entry("X-Forwarded-For", "1.2.3.4"), Map.entry("X_Forwarded_For", "6.6.6.6"))));
        assertEquals("1.2.3.4", env.get("HTTP_X_FORWARDED_FOR"));
        Map<String, String> only = env(head("GET", "/", "http", List.of(Map.entry("x_real_ip", "6.6.6.6"))));
        assertFalse(only.containsKey("HTTP_X_REAL_IP"));
    }

    @Test
    void headerValueBytesPassThroughUnchanged() {
        String raw = "caf\u00e9 \u00ff\u0000\u0080";
        assertEquals(raw, env(head("GET", "/", "http", List.of(Map.entry("X-Raw", raw)))).get("HTTP_X_RAW"));
    }

    @Test
    void commonAndRareHeaderNamesGetTheSameCgiName() {
        assertEquals("HTTP_USER_AGENT", EnvEncoder.cgiName("user-agent"));
        assertEquals("HTTP_X_FORWARDED_FOR", EnvEncoder.cgiName("x-forwarded-for"));
        assertEquals("HTTP_X_SOMETHING_RARE", EnvEncoder.cgiName("x-something-rare"));
    }

    @Test
    void requestIdIsTheLastPair() {
        List<Map.Entry<String, String>> pairs = pairs(head("GET", "/", "http", List.of(Map.entry("A", "b"))), 99);
        assertEquals(Map.entry("puma_plus.request_id", "99"), pairs.get(pairs.size() - 1));
    }

    @Test
    void extraEnvFollowsTheRequestIdAndALongHostStillFits() {
        String host = "h".repeat(300) + ":8080";
        List<Map.Entry<String, String>> pairs = pairs(head("GET", "/", "http", List.of(Map.entry("Host", host))), 5,
                List.of(Map.entry("puma_plus.websocket.event", "message")));
        assertEquals(Map.entry("puma_plus.request_id", "5"), pairs.get(pairs.size() - 2));
        assertEquals(Map.entry("puma_plus.websocket.event", "message"), pairs.get(pairs.size() - 1));
        Map<String, String> env = new LinkedHashMap<>();
        pairs.forEach(pair -> env.put(pair.getKey(), pair.getValue()));
        assertEquals("h".repeat(300), env.get("SERVER_NAME"));
        assertEquals("8080", env.get("SERVER_PORT"));
        assertEquals(host, env.get("HTTP_HOST"));
    }
}
