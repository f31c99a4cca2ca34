/*
 * Claims about an HTTP/1.1 connection's clocks (H1ConnectionTimeouts) on an EmbeddedChannel whose time the
 * tests move: the idle clock (first data, keep-alive) and the header-section deadline.
 */
package dev.pumaplus.protocol.h1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class H1ConnectionTimeoutsTest extends H1ConnectionFixture {

    @Test
    void idleKeepAliveConnectionClosesAfterPersistentTimeout() {
        open(new H1Config(-1, 30, 5, 10, 10, -1, 16));
        send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        answer(queue.submitted.get(0), "ok");
        output();
        channel.advanceTimeBy(4, TimeUnit.SECONDS);
        channel.runScheduledPendingTasks();
        assertTrue(channel.isOpen());
        channel.advanceTimeBy(2, TimeUnit.SECONDS);
        channel.runScheduledPendingTasks();
        assertFalse(channel.isOpen(), "closed after persistent_timeout without a response");
        assertEquals("", output());
    }

    @Test
    void silentNewConnectionClosesAfterFirstDataTimeout() {
        open(new H1Config(-1, 3, 20, 10, 10, -1, 16));
        channel.advanceTimeBy(4, TimeUnit.SECONDS);
        channel.runScheduledPendingTasks();
        assertFalse(channel.isOpen());
        assertEquals("", output());
    }

    @Test
    void headerSectionTricklingPastTheHeaderTimeoutIsAnswered408AndClosedThoughEveryByteCameInTime() {
        open(new H1Config(-1, 30, 20, 10, 5, -1, 16));
        String request = "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: abcdefghij\r\n";
        for (int i = 0; i < request.length() && channel.isOpen(); i++) {
            send(request.substring(i, i + 1)); // a byte a second: every idle clock would be satisfied
            channel.advanceTimeBy(1, TimeUnit.SECONDS);
            channel.runScheduledPendingTasks();
            if (i < 4) {
                assertTrue(channel.isOpen(), "open before the header deadline, at " + (i + 1) + " s");
            }
        }
        String out = output();
        assertTrue(out.startsWith("HTTP/1.1 408 "), out);
        assertTrue(queue.submitted.isEmpty(), "the request never reached the queue");
        channel.advanceTimeBy(H1ConnectionHandler.LINGER_SECONDS, TimeUnit.SECONDS);
        channel.runScheduledPendingTasks();
        assertFalse(channel.isOpen());
    }

    @Test
    void headerDeadlineOfAPipelinedRequestRunsFromItsOwnFirstByteAndItsAnswerFollowsTheEarlierOnes() {
        open(new H1Config(-1, 30, 20, 10, 5, -1, 16));
        send("GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HT");
        channel.advanceTimeBy(4, TimeUnit.SECONDS);
        channel.runScheduledPendingTasks();
        assertEquals(1, queue.submitted.size());
        assertTrue(channel.isOpen());
        channel.advanceTimeBy(2, TimeUnit.SECONDS);
        channel.runScheduledPendingTasks();
        assertEquals("", output(), "the 408 waits for the answer to /1");
        answer(queue.submitted.get(0), "one");
        String out = output();
        assertTrue(out.startsWith("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\noneHTTP/1.1 408 "), out);
    }

    @Test
    void completeHeaderSectionsAreNeverCutByTheHeaderDeadline() {
        open(new H1Config(-1, 30, 20, 10, 5, -1, 16));
        send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        channel.advanceTimeBy(30, TimeUnit.SECONDS);
        channel.runScheduledPendingTasks();
        assertTrue(channel.isOpen(), "a request in flight is the app's, not the header deadline's");
        answer(queue.submitted.get(0), "ok");
        assertTrue(output().startsWith("HTTP/1.1 200 OK"));
    }

    @Test
    void busyConnectionIsNotClosedByTheIdleTimer() {
        open(new H1Config(-1, 30, 5, 10, 10, -1, 16));
        send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        channel.advanceTimeBy(60, TimeUnit.SECONDS);
        channel.runScheduledPendingTasks();
        assertTrue(channel.isOpen(), "a request in flight keeps the connection");
    }
}
