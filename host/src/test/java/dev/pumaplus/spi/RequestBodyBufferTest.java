/*
 * RequestBodyBuffer: the one rule every protocol applies to a request body on its way in (hold up to
 * 1 MiB, then submit and stream), the body limit, and who releases which bytes.
 */
package dev.pumaplus.spi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(5)
class RequestBodyBufferTest {

    private static final int MIB = RequestBodyBuffer.SUBMIT_BYTES;

    /** Records the submit and everything streamed after it; answers writeBody with {@link #acceptMore}. */
    private static final class Host implements RequestBodyBuffer.Submitter, Exchange {
        final List<ByteBuf> submitted = new ArrayList<>();
        byte[] initial;
        Boolean complete;
        final ByteArrayOutputStream streamed = new ByteArrayOutputStream();
        boolean lastStreamed;
        boolean acceptMore = true;
        boolean refuse;
        int cancels;

        @Override
        public Exchange submit(ByteBuf body, boolean complete) {
            submitted.add(body);
            if (refuse) {
                body.release();
                throw new IllegalStateException("shutting down");
            }
            this.initial = bytes(body);
            this.complete = complete;
            return this;
        }

        @Override
        public boolean writeBody(ByteBuf chunk, boolean last) {
            streamed.writeBytes(bytes(chunk));
            lastStreamed |= last;
            return acceptMore;
        }

        @Override
        public void resumeResponse() {
        }

        @Override
        public void cancel() {
            cancels++;
        }

        @Override
        public void responseSent(long flushedNanos) {
        }

        /** Reads {@code buf} without consuming it and releases it, as the host does once it has sent it. */
        private static byte[] bytes(ByteBuf buf) {
            byte[] bytes = new byte[buf.readableBytes()];
            buf.getBytes(buf.readerIndex(), bytes);
            buf.release();
            return bytes;
        }
    }

    private static byte[] random(int n, int seed) {
        byte[] bytes = new byte[n];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    private static ByteBuf piece(byte[] body, int from, int to) {
        return Unpooled.copiedBuffer(body, from, to - from);
    }

    @Test
    void bodyUpToOneMebibyteIsSubmittedWholeAndCompleteOnlyWhenItsLastPieceArrives() {
        Host host = new Host();
        RequestBodyBuffer buffer = new RequestBodyBuffer(-1, host);
        byte[] body = random(MIB, 1);
        List<ByteBuf> pieces = new ArrayList<>();
        for (int off = 0; off < MIB; off += 64 * 1024) {
            boolean last = off + 64 * 1024 == MIB;
            ByteBuf p = piece(body, off, off + 64 * 1024);
            pieces.add(p);
            assertEquals(RequestBodyBuffer.Flow.READ, buffer.add(p, last));
            assertEquals(last ? 1 : 0, host.submitted.size(), "runnable only once the body is complete");
        }
        assertTrue(host.complete);
        assertArrayEquals(body, host.initial);
        assertEquals(0, host.streamed.size());
        for (ByteBuf p : pieces) {
            assertEquals(0, p.refCnt(), "the host's release of the body releases every piece");
        }
    }

    @Test
    void aBodyInOnePieceIsSubmittedAsThatPieceWithoutCopying() {
        Host host = new Host();
        ByteBuf only = Unpooled.copiedBuffer(new byte[] {1, 2, 3});
        new RequestBodyBuffer(-1, host).add(only, true);
        assertSame(only, host.submitted.get(0));
        assertTrue(host.complete);
    }

    @Test
    void anEmptyBodyIsSubmittedCompleteAtItsEnd() {
        Host host = new Host();
        RequestBodyBuffer buffer = new RequestBodyBuffer(-1, host);
        ByteBuf empty = Unpooled.buffer(0);
        buffer.add(empty, false);
        assertEquals(0, empty.refCnt(), "an empty piece that is not the end is released at once");
        assertEquals(0, host.submitted.size());
        buffer.add(Unpooled.EMPTY_BUFFER, true);
        assertEquals(0, host.initial.length);
        assertTrue(host.complete);
    }

    @Test
    void largerBodyIsSubmittedWithExactlyItsFirstMebibyteAndTheRestStreamsInOrder() {
        Host host = new Host();
        RequestBodyBuffer buffer = new RequestBodyBuffer(-1, host);
        byte[] body = random(3 * MIB + 123, 2);
        int piece = 300 * 1024; // 1 MiB falls inside the fourth piece: it is split there
        for (int off = 0; off < body.length; off += piece) {
            int to = Math.min(body.length, off + piece);
            buffer.add(piece(body, off, to), to == body.length);
            assertEquals(off + piece < MIB ? 0 : 1, host.submitted.size(), "submitted once 1 MiB has arrived");
        }
        assertFalse(host.complete);
        assertEquals(MIB, host.initial.length);
        assertTrue(host.lastStreamed);
        ByteArrayOutputStream whole = new ByteArrayOutputStream();
        whole.writeBytes(host.initial);
        whole.writeBytes(host.streamed.toByteArray());
        assertArrayEquals(body, whole.toByteArray());
    }

    @Test
    void bodyOfExactlyOneMebibyteWhoseEndIsNotYetSeenIsSubmittedIncompleteAndEndsWithAnEmptyLastPiece() {
        Host host = new Host();
        RequestBodyBuffer buffer = new RequestBodyBuffer(-1, host);
        buffer.add(Unpooled.wrappedBuffer(new byte[MIB]), false);
        assertEquals(1, host.submitted.size(), "1 MiB has arrived: runnable without waiting for the end");
        assertFalse(host.complete);
        buffer.add(Unpooled.EMPTY_BUFFER, true);
        assertTrue(host.lastStreamed);
        assertEquals(0, host.streamed.size());
    }

    @Test
    void streamingAsksToPauseWhileTheHostRefusesMoreButTheLastPieceNeverPauses() {
        Host host = new Host();
        RequestBodyBuffer buffer = new RequestBodyBuffer(-1, host);
        buffer.add(Unpooled.wrappedBuffer(new byte[MIB]), false);
        host.acceptMore = false;
        assertEquals(RequestBodyBuffer.Flow.PAUSE, buffer.add(Unpooled.wrappedBuffer(new byte[10]), false));
        assertEquals(RequestBodyBuffer.Flow.READ, buffer.add(Unpooled.wrappedBuffer(new byte[10]), true));
        assertEquals(20, host.streamed.size());
    }

    @Test
    void bodyGrowingPastTheLimitBeforeTheSubmitIsReleasedAndNeverSubmitted() {
        Host host = new Host();
        RequestBodyBuffer buffer = new RequestBodyBuffer(100, host);
        ByteBuf first = Unpooled.wrappedBuffer(new byte[60]);
        ByteBuf second = Unpooled.wrappedBuffer(new byte[60]);
        assertEquals(RequestBodyBuffer.Flow.READ, buffer.add(first, false));
        assertEquals(RequestBodyBuffer.Flow.TOO_LARGE, buffer.add(second, false));
        assertEquals(0, first.refCnt());
        assertEquals(0, second.refCnt());
        assertEquals(0, host.submitted.size());
        ByteBuf late = Unpooled.wrappedBuffer(new byte[1]);
        assertEquals(RequestBodyBuffer.Flow.READ, buffer.add(late, true));
        assertEquals(0, late.refCnt(), "nothing more is taken");
        assertEquals(0, host.submitted.size());
    }

    @Test
    void bodyGrowingPastTheLimitWhileStreamingCancelsTheExchange() {
        Host host = new Host();
        RequestBodyBuffer buffer = new RequestBodyBuffer(MIB + 10, host);
        buffer.add(Unpooled.wrappedBuffer(new byte[MIB]), false);
        ByteBuf over = Unpooled.wrappedBuffer(new byte[11]);
        assertEquals(RequestBodyBuffer.Flow.TOO_LARGE, buffer.add(over, false));
        assertEquals(0, over.refCnt());
        assertEquals(1, host.cancels, "the host must not wait for the rest");
        assertEquals(0, host.streamed.size());
    }

    @Test
    void abandonReleasesWhatIsHeldAndCancelsOnlyABodyTheHostStillWaitsFor() {
        Host host = new Host();
        RequestBodyBuffer held = new RequestBodyBuffer(-1, host);
        ByteBuf a = Unpooled.wrappedBuffer(new byte[10]);
        ByteBuf b = Unpooled.wrappedBuffer(new byte[10]);
        held.add(a, false);
        held.add(b, false);
        held.abandon();
        assertEquals(0, a.refCnt());
        assertEquals(0, b.refCnt());
        assertEquals(0, host.submitted.size());
        assertEquals(0, host.cancels);

        RequestBodyBuffer streaming = new RequestBodyBuffer(-1, host);
        streaming.add(Unpooled.wrappedBuffer(new byte[MIB]), false);
        streaming.abandon();
        streaming.abandon();
        assertEquals(1, host.cancels, "a submitted body without its end: cancelled, once");

        Host done = new Host();
        RequestBodyBuffer complete = new RequestBodyBuffer(-1, done);
        complete.add(Unpooled.wrappedBuffer(new byte[10]), true);
        complete.abandon();
        assertEquals(0, done.cancels, "a complete body leaves its exchange alone: the response may still run");
    }

    @Test
    void aRefusedSubmitIsReportedOnceAndTheRestOfTheBodyIsReleasedAsItArrives() {
        Host host = new Host();
        host.refuse = true;
        RequestBodyBuffer whole = new RequestBodyBuffer(-1, host);
        assertEquals(RequestBodyBuffer.Flow.REFUSED, whole.add(Unpooled.wrappedBuffer(new byte[3]), true));

        RequestBodyBuffer buffer = new RequestBodyBuffer(-1, host);
        byte[] body = random(MIB + 100, 3);
        assertEquals(RequestBodyBuffer.Flow.REFUSED, buffer.add(piece(body, 0, MIB + 50), false));
        assertEquals(2, host.submitted.size());
        assertNull(host.complete);
        ByteBuf rest = piece(body, MIB + 50, MIB + 100);
        assertEquals(RequestBodyBuffer.Flow.READ, buffer.add(rest, true));
        assertEquals(0, rest.refCnt());
        assertEquals(0, host.streamed.size());
        buffer.abandon();
        assertEquals(0, host.cancels, "there is no exchange to cancel");
    }
}
