/*
 * Claims about a response's bytes on their way to the socket (ResponseOutput, behind PendingResponse) on an
 * EmbeddedChannel whose writes a test holds back: the backpressure count, held output behind an earlier
 * response, and T6 reported once after the last byte.
 */
package dev.pumaplus.protocol.h1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class ResponseOutputTest extends H1ConnectionFixture {

    private static final int PIECE = 64 * 1024;

    /**
     * Holds every write, as the socket of a client that does not read would, until the test lets some
     * through: an EmbeddedChannel otherwise completes every write at its flush.
     */
    static final class HeldWrites extends ChannelOutboundHandlerAdapter {
        private final ArrayDeque<Object> messages = new ArrayDeque<>();
        private final ArrayDeque<ChannelPromise> promises = new ArrayDeque<>();
        private ChannelHandlerContext ctx;

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            messages.add(msg);
            promises.add(promise);
        }

        @Override
        public void flush(ChannelHandlerContext ctx) {
            // held: release() flushes
        }

        @Override
        public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
            release(messages.size()); // so the channel's end of test releases them
            ctx.close(promise);
        }

        int held() {
            return messages.size();
        }

        /** Lets the oldest {@code n} writes reach the socket (and complete). */
        void release(int n) {
            for (int i = 0; i < n && !messages.isEmpty(); i++) {
                ctx.write(messages.poll(), promises.poll());
            }
            ctx.flush();
        }
    }

    private HeldWrites openHeld() {
        queue = new RecordingQueue();
        H1RequestDecoder decoder = new H1RequestDecoder(false);
        HeldWrites held = new HeldWrites();
        channel = new EmbeddedChannel(held, decoder,
                new H1ConnectionHandler(queue, new H1Config(-1, 30, 20, 10, 10, -1, 16), decoder, null));
        channel.freezeTime();
        return held;
    }

    private static ByteBuf piece() {
        return Unpooled.wrappedBuffer(new byte[PIECE]);
    }

    /** Offers 64 KiB pieces until body() asks for a pause; returns how many it took. */
    private int bodyUntilPaused(RecordingQueue.Submitted s) {
        for (int n = 1; n <= 64; n++) {
            boolean more = s.sink.body(piece(), false);
            channel.runPendingTasks();
            if (!more) {
                return n;
            }
        }
        throw new AssertionError("body() never asked for a pause after 4 MiB");
    }

    @Test
    void clientNotReadingMakesBodyAskForAPausePastOneMebibyteAndItsReadingResumesTheHostOnce() {
        HeldWrites held = openHeld();
        send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n");
        RecordingQueue.Submitted s = queue.submitted.get(0);
        s.sink.head(200, headers(), false);
        channel.runPendingTasks();
        int pieces = bodyUntilPaused(s);
        assertEquals(MIB / PIECE + 1, pieces, "false on the first piece past 1 MiB unwritten");
        assertEquals(1 + pieces, held.held(), "the head and one write per piece wait for the client");
        // The client reads: down to 5 pieces (320 KiB) unwritten is still above the 256 KiB low-water mark.
        held.release(1 + pieces - 5);
        assertEquals(0, s.resumes.get(), "no resume above the low-water mark");
        held.release(1);
        assertEquals(1, s.resumes.get(), "resumed once down to 256 KiB");
        held.release(4);
        assertEquals(1, s.resumes.get(), "one pause, one resume");
        assertTrue(s.sink.body(piece(), false), "room again");
        s.sink.body(Unpooled.EMPTY_BUFFER, true);
        channel.runPendingTasks();
        held.release(held.held());
        String out = output();
        assertTrue(out.startsWith("HTTP/1.1 200 OK\r\n"), out.substring(0, 40));
        assertTrue(out.endsWith("\r\n0\r\n\r\n"), "the whole chunked body went out");
        assertEquals(pieces + 1, out.split("\r\n10000\r\n", -1).length - 1, "every 64 KiB piece, once");
    }

    @Test
    void pipelinedResponseHeldBehindAnEarlierOneAsksForAPausePastOneMebibyteAndResumesOnItsTurn() {
        open();
        send("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n");
        RecordingQueue.Submitted a = queue.submitted.get(0);
        RecordingQueue.Submitted b = queue.submitted.get(1);
        b.sink.head(200, headers("Content-Length", Integer.toString(2 * MIB)), false);
        int pieces = bodyUntilPaused(b);
        assertEquals(MIB / PIECE + 1, pieces, "buffered behind /a, it counts as unwritten");
        assertEquals("", output(), "nothing of /b leaves before /a");
        assertEquals(0, b.resumes.get());
        answer(a, "a");
        assertEquals(1, b.resumes.get(), "written on its turn: the host may send more");
        String out = output();
        int bStart = out.indexOf("HTTP/1.1 200 OK", 1);
        assertTrue(bStart > 0 && out.substring(0, bStart).endsWith("\r\n\r\na"), "/a first, whole");
        String bOut = out.substring(bStart);
        assertEquals(pieces * PIECE, bOut.length() - (bOut.indexOf("\r\n\r\n") + 4),
                "every held byte of /b went out after /a");
    }

    @Test
    void droppedBodyOfAHeadResponseNeverAsksForAPause() {
        HeldWrites held = openHeld();
        send("HEAD /big HTTP/1.1\r\nHost: x\r\n\r\n");
        RecordingQueue.Submitted s = queue.submitted.get(0);
        s.sink.head(200, headers("Content-Length", Integer.toString(4 * MIB)), false);
        for (int i = 0; i < 4 * MIB / PIECE - 1; i++) {
            assertTrue(s.sink.body(piece(), false), "a dropped piece is never waited for");
            channel.runPendingTasks();
        }
        s.sink.body(piece(), true);
        channel.runPendingTasks();
        assertEquals(2, held.held(), "only the head is written (and the empty end marker behind it)");
        assertEquals(0, s.sentCalls.get(), "not reported sent while its bytes wait for the socket");
        held.release(2);
        assertEquals(0, s.resumes.get());
        assertEquals(1, s.sentCalls.get(), "reported sent once the socket took the last byte");
    }

    @Test
    void clientGoneWhilePausedReleasesTheHeldBodyAndCancels() {
        open();
        send("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n");
        RecordingQueue.Submitted b = queue.submitted.get(1);
        b.sink.head(200, headers(), false);
        bodyUntilPaused(b);
        channel.close();
        channel.runPendingTasks();
        assertTrue(b.cancelled);
        for (int i = 0; i < 32; i++) {
            assertTrue(b.sink.body(piece(), false), "late pieces are dropped at once, never counted as waiting");
            channel.runPendingTasks();
        }
    }

    @Test
    void responseSentIsReportedOnceAfterTheLastByteEvenForAResponseBufferedBehindAnEarlierOne() {
        open();
        send("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n");
        RecordingQueue.Submitted a = queue.submitted.get(0);
        RecordingQueue.Submitted b = queue.submitted.get(1);
        channel.advanceTimeBy(3, TimeUnit.MILLISECONDS);
        long before = now();
        answer(b, "bb");
        assertEquals(0, b.sentCalls.get(), "b is buffered behind a: none of its bytes reached the socket");
        answer(a, "aa");
        String out = output();
        assertTrue(out.endsWith("bb"), out);
        assertEquals(1, a.sentCalls.get());
        assertEquals(1, b.sentCalls.get());
        assertTrue(a.sentNanos >= before, "T6 is read when the write completes");
        assertTrue(b.sentNanos >= a.sentNanos, "b's last byte follows a's");
    }

    @Test
    void responseOfAClientThatWentAwayIsNeverReportedSent() {
        open();
        send("GET /gone HTTP/1.1\r\nHost: x\r\n\r\n");
        RecordingQueue.Submitted gone = queue.submitted.get(0);
        channel.close();
        answer(gone, "late");
        assertTrue(gone.cancelled);
        assertEquals(0, gone.sentCalls.get());
    }
}
