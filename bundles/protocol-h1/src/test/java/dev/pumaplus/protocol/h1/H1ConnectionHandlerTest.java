/*
 * Claims about one HTTP/1.1 connection (parse → queue → respond) checked on an EmbeddedChannel: pipelining
 * order, body buffering and streaming, limits, keep-alive, cancellation, early hints and hijack. The
 * channel's time is frozen and moved by the tests, so timings and timeouts never depend on sleeping; its
 * clocks, read-ahead bound and response output have claims of their own beside their types' names.
 */
package dev.pumaplus.protocol.h1;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pumaplus.spi.RequestHead;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class H1ConnectionHandlerTest extends H1ConnectionFixture {

    @Test
    void pipelinedRequestsAreAllSubmittedAtOnceAndAnsweredInRequestOrderEvenWhenAnsweredOutOfOrder() {
        open();
        StringBuilder pipeline = new StringBuilder();
        for (int i = 0; i < 10; i++) {
            pipeline.append("GET /r").append(i).append(" HTTP/1.1\r\nHost: x\r\n\r\n");
        }
        send(pipeline.toString());
        assertEquals(10, queue.submitted.size());
        for (int i = 0; i < 10; i++) {
            assertEquals("/r" + i, queue.submitted.get(i).head.target());
        }
        for (int i = 9; i >= 0; i--) {
            answer(queue.submitted.get(i), "body" + i);
            if (i > 0) {
                assertEquals("", output(), "nothing leaves before the first response is complete");
            }
        }
        String out = output();
        int at = -1;
        for (int i = 0; i < 10; i++) {
            int next = out.indexOf("body" + i, at + 1);
            assertTrue(next > at, "response " + i + " in order: " + out);
            at = next;
        }
        assertEquals(10, out.split("HTTP/1.1 200 OK\r\n", -1).length - 1);
        assertTrue(channel.isOpen(), "keep-alive");
    }

    @Test
    void laterResponseStreamsAsSoonAsTheEarlierOneCompletes() {
        open();
        send("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n");
        RecordingQueue.Submitted a = queue.submitted.get(0);
        RecordingQueue.Submitted b = queue.submitted.get(1);
        b.sink.head(200, headers(), false);
        b.sink.body(text("b-part"), false);
        a.sink.head(200, headers(), false);
        a.sink.body(text("a-part"), false);
        String out = output();
        assertTrue(out.contains("a-part") && !out.contains("b-part"), out);
        a.sink.body(Unpooled.EMPTY_BUFFER, true);
        out = output();
        assertTrue(out.contains("b-part"), "b's buffered head and body flush once a ends: " + out);
        b.sink.body(text("b-more"), false);
        assertTrue(output().contains("b-more"), "then b streams directly");
    }

    @Test
    void requestHeadCarriesRawTargetVersionOrderedHeadersAndTimes() {
        open();
        byte[] request = "GET /p%20q?x=1&y=%C3 HTTP/1.1\r\nHost: h\r\nX-B: 2\r\nX-A: caf\u00e9\r\nX-B: 3\r\n\r\n"
                .getBytes(StandardCharsets.ISO_8859_1);
        channel.advanceTimeBy(7, TimeUnit.MILLISECONDS);
        long before = now();
        send(request);
        RequestHead head = queue.submitted.get(0).head;
        assertEquals("GET", head.method());
        assertEquals("/p%20q?x=1&y=%C3", head.target());
        assertEquals("HTTP/1.1", head.protocol());
        assertEquals("http", head.scheme());
        assertEquals(headers("Host", "h", "X-B", "2", "X-A", "caf\u00e9", "X-B", "3"), head.headers());
        assertTrue(head.firstByteNanos() >= before && head.headersParsedNanos() >= head.firstByteNanos());
        assertFalse(queue.submitted.get(0).spooled);
        assertEquals(0, queue.submitted.get(0).initialBody.length);
    }

    @Test
    void contentLengthBodyUpToTheMemoryBoundIsSubmittedWholeInMemoryOnlyOnceBuffered() {
        open();
        byte[] body = new byte[MEMORY];
        new Random(1).nextBytes(body);
        send("POST /u HTTP/1.1\r\nHost: x\r\nContent-Length: " + MEMORY + "\r\n\r\n");
        send(java.util.Arrays.copyOf(body, MEMORY - 1));
        assertEquals(0, queue.submitted.size(), "not runnable before the body is buffered");
        send(new byte[] {body[MEMORY - 1]});
        assertEquals(1, queue.submitted.size());
        assertFalse(queue.submitted.get(0).spooled);
        assertArrayEquals(body, queue.submitted.get(0).initialBody);
    }

    @Test
    void chunkedUploadIsReassembledIntoOneBody() {
        open();
        send("POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
        assertEquals(0, queue.submitted.size());
        send("1;ext=1\r\n,\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n");
        assertEquals(1, queue.submitted.size());
        assertEquals("hello, world", queue.submitted.get(0).body());
        assertFalse(queue.submitted.get(0).spooled);
    }

    @Test
    void bodyOverTheMemoryBoundIsSpooledAndSubmittedWholeOnlyOnceItsLastByteArrived() {
        open();
        byte[] body = new byte[3 * MIB];
        new Random(2).nextBytes(body);
        send("PUT /big HTTP/1.1\r\nHost: x\r\nContent-Length: " + body.length + "\r\n\r\n");
        int piece = 64 * 1024;
        for (int off = 0; off < body.length; off += piece) {
            assertEquals(0, queue.submitted.size(), "never submitted before the whole body arrived");
            send(java.util.Arrays.copyOfRange(body, off, off + piece));
        }
        assertEquals(1, queue.submitted.size());
        RecordingQueue.Submitted s = queue.submitted.get(0);
        assertTrue(s.spooled);
        assertArrayEquals(body, s.initialBody);
    }

    @Test
    void chunkedBodyGrowingPastTheMemoryBoundIsSpooledWhole() {
        open();
        send("POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
        byte[] piece = new byte[300 * 1024];
        for (int i = 0; i < 4; i++) {
            send(Integer.toHexString(piece.length) + "\r\n");
            send(piece);
            send("\r\n");
        }
        assertEquals(0, queue.submitted.size());
        send("0\r\n\r\n");
        assertEquals(1, queue.submitted.size());
        assertTrue(queue.submitted.get(0).spooled);
        assertEquals(4 * piece.length, queue.submitted.get(0).initialBody.length);
    }

    @Test
    void bodyThatBringsNoByteForTheFirstDataTimeoutIsAnswered408AndTheConnectionClosed() {
        open();
        send("PUT /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n");
        send(new byte[10]);
        channel.advanceTimeBy(FIRST_DATA_TIMEOUT_SECS - 1, TimeUnit.SECONDS);
        channel.runPendingTasks();
        send(new byte[10]);
        channel.advanceTimeBy(FIRST_DATA_TIMEOUT_SECS - 1, TimeUnit.SECONDS);
        channel.runPendingTasks();
        assertEquals("", output(), "each byte moves the deadline");
        channel.advanceTimeBy(1, TimeUnit.SECONDS);
        channel.runPendingTasks();
        assertTrue(output().startsWith("HTTP/1.1 408 "));
        assertEquals(0, queue.submitted.size(), "the app never sees it");
    }

    @Test
    void headResponseHasNoBodyButKeepsContentLength() {
        open();
        send("HEAD /h HTTP/1.1\r\nHost: x\r\n\r\nGET /g HTTP/1.1\r\nHost: x\r\n\r\n");
        RecordingQueue.Submitted head = queue.submitted.get(0);
        head.sink.head(200, headers("Content-Length", "5"), false);
        head.sink.body(text("hello"), true);
        answer(queue.submitted.get(1), "world");
        String out = output();
        assertEquals("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nworld", out);
    }

    @Test
    void expectContinueIsAnsweredWith100BeforeTheBodyIsRead() {
        open();
        send("POST /e HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n");
        assertEquals("HTTP/1.1 100 Continue\r\n\r\n", output());
        send("data");
        assertEquals("data", queue.submitted.get(0).body());
    }

    @Test
    void expectContinueWithContentLengthOverTheLimitGets413WithoutContinue() {
        assertRejected("POST /e HTTP/1.1\r\nHost: x\r\nContent-Length: 101\r\nExpect: 100-continue\r\n\r\n",
                "413 ");
        assertFalse(output().contains("100 Continue"));
    }

    @Test
    void requestTargetOver12KiBIsAnswered414AndNeverSubmitted() {
        assertRejected("GET /" + "a".repeat(12 * 1024) + " HTTP/1.1\r\nHost: x\r\n\r\n", "414 ");
    }

    @Test
    void requestLineFarBeyondTheLimitIsAnswered414() {
        assertRejected("GET /" + "a".repeat(20 * 1024) + " HTTP/1.1\r\nHost: x\r\n\r\n", "414 ");
    }

    @Test
    void headerSectionOver112KiBIsAnswered431AndNeverSubmitted() {
        StringBuilder req = new StringBuilder("GET / HTTP/1.1\r\nHost: x\r\n");
        for (int i = 0; i < 120; i++) {
            req.append("X-Filler-").append(i).append(": ").append("v".repeat(1000)).append("\r\n");
        }
        assertRejected(req.append("\r\n").toString(), "431 ");
    }

    @Test
    void contentLengthOverTheLimitIsAnswered413AndNeverSubmitted() {
        assertRejected("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 101\r\n\r\n", "413 ");
    }

    @Test
    void chunkedBodyGrowingPastTheLimitIsAnswered413AndNeverSubmitted() {
        assertRejected("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "40\r\n" + "a".repeat(64) + "\r\n40\r\n" + "a".repeat(64) + "\r\n0\r\n\r\n", "413 ");
    }

    @Test
    void malformedRequestLineIsAnswered400() {
        assertRejected("GARBAGE\r\n\r\n", "400 ");
    }

    @Test
    void malformedHeaderIsAnswered400() {
        assertRejected("GET / HTTP/1.1\r\nHost: x\r\nBad Header : v\r\n\r\n", "400 ");
    }

    @Test
    void badChunkSizeIsAnswered400() {
        assertRejected("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
                "400 ");
    }

    @Test
    void badContentLengthIsAnswered400() {
        assertRejected("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 12abc\r\n\r\n", "400 ");
    }

    @Test
    void bothContentLengthAndTransferEncodingIsAnswered400() {
        assertRejected("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\nhello\r\n0\r\n\r\n", "400 ");
    }

    @Test
    void rejectionWaitsForTheEarlierPipelinedResponse() {
        open();
        send("GET /ok HTTP/1.1\r\nHost: x\r\n\r\nGARBAGE\r\n\r\n");
        assertEquals(1, queue.submitted.size());
        assertEquals("", output(), "the 400 may not overtake the first response");
        answer(queue.submitted.get(0), "first");
        String out = output();
        assertTrue(out.startsWith("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst"
                + "HTTP/1.1 400 Bad Request\r\n"), out);
        assertFalse(channel.isOpen());
    }

    @Test
    void clientDisconnectCancelsEveryPendingExchange() {
        open();
        send("GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\nGET /3 HTTP/1.1\r\nHost: x\r\n\r\n");
        answer(queue.submitted.get(0), "done");
        queue.submitted.get(1).sink.head(200, headers(), false);
        channel.runPendingTasks();
        channel.close();
        channel.runPendingTasks();
        assertFalse(queue.submitted.get(0).cancelled, "a finished exchange is not cancelled");
        assertTrue(queue.submitted.get(1).cancelled);
        assertTrue(queue.submitted.get(2).cancelled);
        ByteBuf late = text("late");
        queue.submitted.get(2).sink.head(200, headers(), false);
        queue.submitted.get(1).sink.body(late, true);
        channel.runPendingTasks();
        assertEquals(0, late.refCnt(), "late response bytes are released");
    }

    @Test
    void uploadStillArrivingHoldsNoExchangeAndAClientGoneMidUploadSubmitsNothing() {
        open();
        send("PUT /big HTTP/1.1\r\nHost: x\r\nContent-Length: " + (2 * MIB) + "\r\n\r\n");
        send(new byte[MIB + 10]);
        assertEquals(0, queue.submitted.size(), "no exchange, so no slot, waits for the rest");
        channel.close();
        channel.runPendingTasks();
        assertEquals(0, queue.submitted.size());
    }

    @Test
    void requestsPipelinedBehindAClosingResponseAreCancelled() {
        open();
        send("GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\n");
        queue.submitted.get(0).sink.head(200, headers("Connection", "close", "Content-Length", "0"), true);
        channel.runPendingTasks();
        assertTrue(queue.submitted.get(1).cancelled);
        assertFalse(channel.isOpen());
    }

    @Test
    void pipelinedRequestHasTheTimeOfTheReadThatCarriedIt() {
        open();
        send("GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\n");
        channel.advanceTimeBy(5, TimeUnit.MILLISECONDS);
        long beforeThird = now();
        send("GET /3 HTTP/1.1\r\nHost: x\r\n\r\n");
        RequestHead first = queue.submitted.get(0).head;
        RequestHead second = queue.submitted.get(1).head;
        RequestHead third = queue.submitted.get(2).head;
        assertEquals(first.firstByteNanos(), second.firstByteNanos(), "both arrived in one read");
        assertTrue(third.firstByteNanos() >= beforeThird && third.firstByteNanos() > first.firstByteNanos(),
                "a later read starts a later request");
    }

    @Test
    void slowUploadKeepsT2AtHeaderTimeAndIsSubmittedOnlyWhenComplete() {
        open();
        send("POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nab");
        channel.advanceTimeBy(5, TimeUnit.MILLISECONDS);
        long bodyDone = now();
        send("cd");
        RequestHead head = queue.submitted.get(0).head;
        assertTrue(head.headersParsedNanos() < bodyDone, "T2 is when headers parsed, not when the body ended");
        assertEquals("abcd", queue.submitted.get(0).body());
    }

    @Test
    void unsupportedHttpVersionIsAnswered505() {
        assertRejected("GET / HTTP/1.2\r\nHost: x\r\n\r\n", "505 ");
    }

    @Test
    void aFirstLineNamingNoHttpVersionOnAnH2cListenerIsClosedWithoutAnAnswer() {
        open(new H1Config(100, 30, 20, 10, 10, -1, 16), true);
        send("INVALID CONNECTION PREFACE\r\n\r\n");
        assertEquals("", output(), "neither HTTP/1.x nor HTTP/2: no HTTP/1.1 response an h2 client would misread");
        assertFalse(channel.isOpen(), "closed as RFC 9113 section 3.4 asks of an invalid preface");
        assertEquals(0, queue.submitted.size());
    }

    @Test
    void aFirstLineNamingNoHttpVersionIsClosedUnansweredOnlyOnceTheEmptyLineAfterItArrives() {
        open(new H1Config(100, 30, 20, 10, 10, -1, 16), true);
        send("INVALID CONNECTION PREFACE\r\n");
        assertTrue(channel.isOpen(), "a field line may still follow, which would make it HTTP/1.x");
        send("\r\n");
        assertEquals("", output());
        assertFalse(channel.isOpen());
    }

    @Test
    void onAnH2cListenerAFirstLineNamingNoHttpVersionFollowedByFieldsIsAnswered400() {
        open(new H1Config(100, 30, 20, 10, 10, -1, 16), true);
        send("this is not a request line\r\nHost: x\r\n\r\n");
        assertTrue(output().startsWith("HTTP/1.1 400 "), "field lines make it an HTTP/1.x request, if a broken one");
        assertEquals(0, queue.submitted.size());
    }

    @Test
    void onAnH2cListenerABrokenHttpVersionIsStillAnswered400() {
        open(new H1Config(100, 30, 20, 10, 10, -1, 16), true);
        send("GET / http/1.1\r\nHost: x\r\n\r\n");
        assertTrue(output().startsWith("HTTP/1.1 400 "), "a line naming HTTP, in any case, is an HTTP/1.x request");
    }

    @Test
    void onAnH2cListenerALaterRequestNamingNoHttpVersionIsAnswered400() {
        open(new H1Config(100, 30, 20, 10, 10, -1, 16), true);
        send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        answer(queue.submitted.get(0), "ok");
        output();
        send("INVALID CONNECTION PREFACE\r\n\r\n");
        assertTrue(output().startsWith("HTTP/1.1 400 "), "after an HTTP/1.1 request the client speaks HTTP/1.1");
    }

    @Test
    void withoutH2cAFirstLineNamingNoHttpVersionIsAnswered400() {
        assertRejected("INVALID CONNECTION PREFACE\r\n\r\n", "400 ");
    }

    @Test
    void failBeforeHeadAnswersTheStatusAndCloses() {
        open();
        send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        queue.submitted.get(0).sink.fail(502, "worker died", false);
        String out = output();
        assertTrue(out.startsWith("HTTP/1.1 502 Bad Gateway\r\n"), out);
        assertTrue(out.contains("Connection: close\r\n") && out.endsWith("\r\n\r\n502 Bad Gateway\n"), out);
        assertFalse(channel.isOpen());
    }

    @Test
    void requestTheHostRefusesIsAnswered503AndTheConnectionCloses() {
        open();
        queue.refuse = true;
        send("POST /r HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc");
        String out = output();
        assertTrue(out.startsWith("HTTP/1.1 503 Service Unavailable\r\n"), out);
        assertTrue(out.contains("Connection: close\r\n") && out.endsWith("\r\n\r\n503 Service Unavailable\n"), out);
        assertEquals(0, queue.submitted.size());
        assertFalse(channel.isOpen());
    }

    @Test
    void failAfterHeadClosesTheConnectionSoTheTruncationShows() {
        open();
        send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        RecordingQueue.Submitted s = queue.submitted.get(0);
        s.sink.head(200, headers(), false);
        s.sink.body(text("partial"), false);
        s.sink.fail(502, "worker died", true);
        String out = output();
        assertTrue(out.endsWith("7\r\npartial\r\n"), "no terminating chunk: " + out);
        assertFalse(channel.isOpen());
    }

    @Test
    void twoSetCookieHeadersStayTwoHeaderLines() {
        open();
        send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        queue.submitted.get(0).sink.head(200,
                headers("Set-Cookie", "a=1; Path=/", "Set-Cookie", "b=2", "Content-Length", "0"), true);
        assertEquals("HTTP/1.1 200 OK\r\nSet-Cookie: a=1; Path=/\r\nSet-Cookie: b=2\r\nContent-Length: 0\r\n\r\n",
                output());
    }

    @Test
    void responseWithoutContentLengthIsChunkedAndEachPieceFlushedAtOnce() {
        open();
        send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        RecordingQueue.Submitted s = queue.submitted.get(0);
        s.sink.head(200, headers("Content-Type", "text/plain"), false);
        assertEquals("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n", output());
        s.sink.body(text("hello"), false);
        assertEquals("5\r\nhello\r\n", output());
        s.sink.body(text("!"), true);
        assertEquals("1\r\n!\r\n0\r\n\r\n", output());
        assertTrue(channel.isOpen());
    }

    @Test
    void http10ResponseWithoutContentLengthIsCloseDelimited() {
        open();
        send("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
        RecordingQueue.Submitted s = queue.submitted.get(0);
        s.sink.head(200, headers(), false);
        s.sink.body(text("bye"), true);
        assertEquals("HTTP/1.0 200 OK\r\nConnection: close\r\n\r\nbye", output());
        assertFalse(channel.isOpen());
    }

    @Test
    void http10KeepAliveIsHonouredWhenTheLengthIsKnown() {
        open();
        send("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
        answer(queue.submitted.get(0), "ok");
        assertEquals("HTTP/1.0 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok", output());
        assertTrue(channel.isOpen());
    }

    @Test
    void http10WithoutKeepAliveClosesAfterTheResponse() {
        open();
        send("GET / HTTP/1.0\r\n\r\n");
        answer(queue.submitted.get(0), "ok");
        assertTrue(output().contains("Connection: close\r\n"));
        assertFalse(channel.isOpen());
    }

    @Test
    void connectionCloseRequestIsTheLastOneTaken() {
        open();
        send("GET /1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\n");
        assertEquals(1, queue.submitted.size());
        answer(queue.submitted.get(0), "ok");
        assertTrue(output().contains("Connection: close\r\n"));
        assertFalse(channel.isOpen());
    }

    @Test
    void hopByHopHeadersFromTheAppAreDropped() {
        open();
        send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        queue.submitted.get(0).sink.head(200, headers("Keep-Alive", "timeout=5", "Transfer-Encoding", "chunked",
                "Connection", "keep-alive", "X-Ok", "1"), false);
        queue.submitted.get(0).sink.body(text("x"), true);
        assertEquals("HTTP/1.1 200 OK\r\nX-Ok: 1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n", output());
    }

    @Test
    void appConnectionCloseClosesAfterTheResponse() {
        open();
        send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        queue.submitted.get(0).sink.head(200, headers("Connection", "close", "Content-Length", "0"), true);
        assertEquals("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", output());
        assertFalse(channel.isOpen());
    }

    @Test
    void noContentResponseCarriesNeitherBodyNorLength() {
        open();
        send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        queue.submitted.get(0).sink.head(204, headers("Content-Length", "3"), false);
        queue.submitted.get(0).sink.body(text("abc"), true);
        assertEquals("HTTP/1.1 204 No Content\r\n\r\n", output());
        assertTrue(channel.isOpen());
    }

    @Test
    void bodyLongerThanTheAppsContentLengthIsCutAndTheConnectionClosed() {
        open();
        send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        queue.submitted.get(0).sink.head(200, headers("Content-Length", "2"), false);
        queue.submitted.get(0).sink.body(text("abcdef"), true);
        assertEquals("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nab", output());
        assertFalse(channel.isOpen());
    }

    @Test
    void drainClosesAnIdleConnectionAtOnce() {
        open();
        channel.pipeline().get(H1ConnectionHandler.class).drain();
        channel.runPendingTasks();
        assertFalse(channel.isOpen());
    }

    @Test
    void drainLetsInFlightResponsesFinishWithConnectionClose() {
        open();
        send("GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\n");
        channel.pipeline().get(H1ConnectionHandler.class).drain();
        answer(queue.submitted.get(0), "one");
        answer(queue.submitted.get(1), "two");
        String out = output();
        assertEquals("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\none"
                + "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\ntwo", out);
        assertFalse(channel.isOpen());
        assertFalse(queue.submitted.get(1).cancelled);
    }

    // ---- early hints and hijack ----

    @Test
    void earlyHintsGoOutAs103BeforeTheResponseOnHttp11AndAreDroppedOnHttp10() {
        open();
        send("GET /hints HTTP/1.1\r\nHost: x\r\n\r\n");
        RecordingQueue.Submitted s = queue.submitted.get(0);
        s.sink.earlyHints(headers("link", "</a.css>; rel=preload", "link", "</b.js>; rel=preload"));
        assertEquals("HTTP/1.1 103 Early Hints\r\nlink: </a.css>; rel=preload\r\nlink: </b.js>; rel=preload\r\n\r\n",
                output());
        answer(s, "ok");
        assertTrue(output().startsWith("HTTP/1.1 200 OK\r\n"));
        s.sink.earlyHints(headers("link", "</late.css>"));
        assertEquals("", output(), "no 103 after the response");

        open();
        send("GET /hints HTTP/1.0\r\n\r\n");
        queue.submitted.get(0).sink.earlyHints(headers("link", "</a.css>"));
        assertEquals("", output(), "HTTP/1.0 has no 1xx responses");
    }

    @Test
    void fullHijackSplicesTheClientToTheAppByteForByteIncludingBytesTheDecoderHeld() {
        open();
        send("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n\r\nearly");
        EmbeddedChannel app = new EmbeddedChannel();
        app.config().setAutoRead(false);
        List<String> welcomed = new ArrayList<>();
        assertTrue(queue.submitted.get(0).sink.hijack(0, List.of(), app, () -> welcomed.add("welcome")));
        channel.runPendingTasks();
        assertEquals(List.of("welcome"), welcomed);
        assertEquals("", output(), "a full hijack writes nothing of its own");
        assertEquals("early", drain(app), "bytes after the request reach the app");

        send("from client");
        assertEquals("from client", drain(app));
        app.writeInbound(text("from app"));
        assertEquals("from app", output());

        app.close();
        channel.runPendingTasks();
        assertFalse(channel.isOpen(), "the app closing closes the client");
        app.finishAndReleaseAll();
    }

    @Test
    void partialHijackWritesTheHeadWithoutFramingThenSplices() {
        open();
        send("GET /partial HTTP/1.1\r\nHost: x\r\n\r\n");
        EmbeddedChannel app = new EmbeddedChannel();
        app.config().setAutoRead(false);
        queue.submitted.get(0).sink.hijack(200, headers("content-type", "text/plain"), app, () -> { });
        channel.runPendingTasks();
        assertEquals("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\n", output());
        app.writeInbound(text("streamed"));
        assertEquals("streamed", output());
        channel.close();
        app.runPendingTasks();
        assertFalse(app.isOpen(), "the client going away closes the app's end");
        app.finishAndReleaseAll();
    }

    @Test
    void hijackBehindAnUnfinishedPipelinedResponseClosesTheConnection() {
        open();
        send("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n");
        EmbeddedChannel app = new EmbeddedChannel();
        queue.submitted.get(1).sink.hijack(0, List.of(), app, () -> { });
        channel.runPendingTasks();
        assertFalse(app.isOpen());
        assertFalse(channel.isOpen());
        app.finishAndReleaseAll();
    }

    /** Everything written to {@code app} (the worker's end) so far. */
    private static String drain(EmbeddedChannel app) {
        app.runPendingTasks();
        StringBuilder sb = new StringBuilder();
        Object msg;
        while ((msg = app.readOutbound()) != null) {
            ByteBuf buf = (ByteBuf) msg;
            sb.append(buf.toString(StandardCharsets.ISO_8859_1));
            buf.release();
        }
        return sb.toString();
    }
}
