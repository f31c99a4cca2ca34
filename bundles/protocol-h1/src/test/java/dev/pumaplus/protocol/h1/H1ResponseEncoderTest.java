/*
 * H1ResponseEncoder on bytes: the HTTP/1.1 response heads, framing decisions, interim responses, error
 * answers and chunk framing the respond step puts on the wire.
 */
package dev.pumaplus.protocol.h1;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(5)
class H1ResponseEncoderTest {

    private static List<Map.Entry<String, String>> fields(String... nameValues) {
        List<Map.Entry<String, String>> list = new ArrayList<>();
        for (int i = 0; i < nameValues.length; i += 2) {
            list.add(Map.entry(nameValues[i], nameValues[i + 1]));
        }
        return list;
    }

    private static String bytes(Consumer<ByteBuf> encode) {
        ByteBuf out = Unpooled.buffer(16); // smaller than any head: the encoder's writes grow it
        encode.accept(out);
        String s = out.toString(StandardCharsets.ISO_8859_1);
        out.release();
        return s;
    }

    /** Encodes a head; returns its bytes and the framing it announced. */
    private record Head(String bytes, H1ResponseEncoder.Framing framing) {
    }

    private static Head head(int status, List<Map.Entry<String, String>> fields, boolean http10, boolean headRequest,
            boolean endOfStream, boolean close) {
        H1ResponseEncoder.Framing[] framing = new H1ResponseEncoder.Framing[1];
        String bytes = bytes(out -> framing[0] = H1ResponseEncoder.head(out, status, fields, http10, headRequest,
                endOfStream, close));
        return new Head(bytes, framing[0]);
    }

    @Test
    void theAppsContentLengthDelimitsTheBodyAndTheConnectionStays() {
        Head h = head(200, fields("Content-Type", "text/html", "Content-Length", "5"), false, false, false, false);
        assertEquals("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\n", h.bytes());
        assertEquals(new H1ResponseEncoder.Framing(true, 5, false, false), h.framing());
    }

    @Test
    void aBodyOfUnknownLengthIsChunkedOnHttp11() {
        Head h = head(200, fields("Content-Type", "text/plain"), false, false, false, false);
        assertEquals("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n", h.bytes());
        assertEquals(new H1ResponseEncoder.Framing(true, -1, true, false), h.framing());
    }

    @Test
    void aHeadThatEndsTheResponseAnnouncesAnEmptyBody() {
        Head h = head(200, fields(), false, false, true, false);
        assertEquals("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", h.bytes());
        assertEquals(new H1ResponseEncoder.Framing(true, 0, false, false), h.framing());
    }

    @Test
    void onHttp10ABodyOfUnknownLengthIsDelimitedByTheCloseAndAKnownOneKeepsTheConnectionAlive() {
        Head unknown = head(200, fields(), true, false, false, false);
        assertEquals("HTTP/1.0 200 OK\r\nConnection: close\r\n\r\n", unknown.bytes());
        assertEquals(new H1ResponseEncoder.Framing(true, -1, false, true), unknown.framing());
        Head known = head(200, fields("Content-Length", "2"), true, false, false, false);
        assertEquals("HTTP/1.0 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\n", known.bytes());
        assertEquals(new H1ResponseEncoder.Framing(true, 2, false, false), known.framing());
    }

    @Test
    void theConnectionsOwnFieldsAreTheEncodersAndTheAppsCloseIsHonoured() {
        Head h = head(200, fields("Keep-Alive", "timeout=5", "Transfer-Encoding", "chunked", "Proxy-Connection", "x",
                "Connection", "keep-alive, Close", "X-Ok", "1", "Content-Length", "1"), false, false, false, false);
        assertEquals("HTTP/1.1 200 OK\r\nX-Ok: 1\r\nContent-Length: 1\r\nConnection: close\r\n\r\n", h.bytes());
        assertEquals(new H1ResponseEncoder.Framing(true, 1, false, true), h.framing());
        Head open = head(200, fields("Connection", "keep-alive, closed", "Content-Length", "0"), false, false, true,
                false);
        assertEquals(false, open.framing().closes(), "only the token close closes");
    }

    @Test
    void theConnectionsReasonToCloseIsAnnounced() {
        Head h = head(200, fields("Content-Length", "0"), false, false, true, true);
        assertEquals("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", h.bytes());
    }

    @Test
    void onlyTheFirstValidContentLengthCountsAndNoneWhereItIsForbidden() {
        Head h = head(200, fields("Content-Length", "-1", "Content-Length", "x", "Content-Length", " 7 ",
                "Content-Length", "9"), false, false, false, false);
        assertEquals("HTTP/1.1 200 OK\r\nContent-Length:  7 \r\n\r\n", h.bytes());
        assertEquals(7, h.framing().length());
        Head noContent = head(204, fields("Content-Length", "3"), false, false, false, false);
        assertEquals("HTTP/1.1 204 No Content\r\n\r\n", noContent.bytes());
        assertEquals(new H1ResponseEncoder.Framing(false, -1, false, false), noContent.framing());
    }

    @Test
    void aResponseToHeadOrA304HasNoBodyButKeepsItsLength() {
        Head head = head(200, fields("Content-Length", "5"), false, true, false, false);
        assertEquals("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", head.bytes());
        assertEquals(new H1ResponseEncoder.Framing(false, -1, false, false), head.framing());
        Head notModified = head(304, fields("Content-Length", "5"), false, false, false, false);
        assertEquals("HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n", notModified.bytes());
        assertEquals(false, notModified.framing().body());
    }

    @Test
    void interimResponsesAndThePartialHijackHeadGoOutAsGivenWithoutFraming() {
        assertEquals("HTTP/1.1 100 Continue\r\n\r\n", bytes(out -> H1ResponseEncoder.unframedHead(out, false, 100,
                List.of())));
        assertEquals("HTTP/1.1 103 Early Hints\r\nlink: </a.css>; rel=preload\r\n\r\n",
                bytes(out -> H1ResponseEncoder.unframedHead(out, false, 103,
                        fields("link", "</a.css>; rel=preload"))));
        assertEquals("HTTP/1.0 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
                bytes(out -> H1ResponseEncoder.unframedHead(out, true, 101,
                        fields("Upgrade", "websocket", "Connection", "Upgrade"))));
    }

    @Test
    void theConnectionsOwnAnswerIsAShortTextThatCloses() {
        assertEquals("HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nConnection: close\r\n"
                + "Content-Length: 16\r\n\r\n502 Bad Gateway\n",
                bytes(out -> H1ResponseEncoder.error(out, false, false, 502)));
        assertEquals("HTTP/1.0 413 Request Entity Too Large\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n",
                bytes(out -> H1ResponseEncoder.error(out, true, true, 413)));
    }

    @Test
    void chunksAreFramedWithTheirSizeInHexAndTheBodyEndsWithTheLastChunk() {
        assertEquals("1\r\n", bytes(out -> H1ResponseEncoder.chunkHeader(out, 1)));
        assertEquals("f\r\n", bytes(out -> H1ResponseEncoder.chunkHeader(out, 15)));
        assertEquals("10\r\n", bytes(out -> H1ResponseEncoder.chunkHeader(out, 16)));
        assertEquals("10000\r\n", bytes(out -> H1ResponseEncoder.chunkHeader(out, 64 * 1024)));
        assertEquals("7fffffffffffffff\r\n", bytes(out -> H1ResponseEncoder.chunkHeader(out, Long.MAX_VALUE)));
        assertEquals("\r\n", bytes(H1ResponseEncoder::chunkEnd));
        assertEquals("0\r\n\r\n", bytes(H1ResponseEncoder::lastChunk));
    }
}
