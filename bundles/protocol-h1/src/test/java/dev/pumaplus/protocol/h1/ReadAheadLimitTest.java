/*
 * Claims about an HTTP/1.1 connection's read-ahead bound (ReadAheadLimit) on an EmbeddedChannel: requests
 * beyond it are neither decoded nor read until an answer completes and the channel is writable.
 */
package dev.pumaplus.protocol.h1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class ReadAheadLimitTest extends H1ConnectionFixture {

    @Test
    void pipelinedRequestsBeyondTheBoundAreNeitherDecodedNorReadUntilAnAnswerCompletes() {
        open(new H1Config(-1, 30, 20, 10, 10, -1, 2));
        StringBuilder pipeline = new StringBuilder();
        for (int i = 0; i < 10; i++) {
            pipeline.append("GET /").append(i).append(" HTTP/1.1\r\nHost: x\r\n\r\n");
        }
        send(pipeline.toString());
        assertEquals(3, queue.submitted.size(), "one being answered and two read ahead");
        assertFalse(channel.config().isAutoRead(), "the connection stops reading at the bound");
        answer(queue.submitted.get(0), "0");
        assertEquals(4, queue.submitted.size(), "one answer out, one more request in");
        assertFalse(channel.config().isAutoRead());
        for (int i = 1; i < 10; i++) {
            answer(queue.submitted.get(i), Integer.toString(i));
        }
        assertEquals(10, queue.submitted.size());
        assertTrue(channel.config().isAutoRead(), "reading again once below the bound");
        String out = output();
        for (int i = 0; i < 10; i++) {
            assertTrue(out.contains("\r\n\r\n" + i), "answer " + i + " in " + out);
        }
    }

    @Test
    void readAheadWaitsForAnUnwritableChannelAsWellAsForTheAnswer() {
        open(new H1Config(-1, 30, 20, 10, 10, -1, 1));
        StringBuilder pipeline = new StringBuilder();
        for (int i = 0; i < 5; i++) {
            pipeline.append("GET /").append(i).append(" HTTP/1.1\r\nHost: x\r\n\r\n");
        }
        send(pipeline.toString());
        assertEquals(2, queue.submitted.size(), "one being answered and one read ahead");
        // The client takes nothing: the answers it has not read keep the channel unwritable.
        channel.unsafe().outboundBuffer().setUserDefinedWritability(1, false);
        answer(queue.submitted.get(0), "0");
        assertEquals(2, queue.submitted.size(), "an answered request whose bytes wait lets no new one in");
        assertFalse(channel.config().isAutoRead());
        channel.unsafe().outboundBuffer().setUserDefinedWritability(1, true);
        channel.runPendingTasks();
        assertEquals(3, queue.submitted.size(), "writable again: the next request is read");
    }
}
