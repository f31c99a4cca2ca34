/*
 * SpoolingBodyBuffer, the host's RequestBodyBuffer: the one rule every protocol applies to a request body on
 * its way in (hold up to 112 KiB, spool the rest to an unnamed file, submit only the whole body), the body
 * limit, the progress deadline, and who releases which bytes.
 */
package dev.pumaplus.host.queue;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.pumaplus.spi.Exchange;
import dev.pumaplus.spi.RequestBodyBuffer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(5)
class SpoolingBodyBufferTest {

    private static final int MEMORY = RequestBodyBuffer.MEMORY_BYTES;

    /** Records the one submit: the in-memory body's bytes, or the spool file. */
    private static final class Host implements RequestBodyBuffer.Submitter {
        final List<ByteBuf> submitted = new ArrayList<>();
        byte[] body;
        FileChannel file;
        boolean refuse;

        @Override
        public Exchange submit(ByteBuf bytes, FileChannel bodyFile) {
            submitted.add(bytes);
            file = bodyFile;
            if (refuse) {
                bytes.release();
                throw new IllegalStateException("shutting down");
            }
            body = new byte[bytes.readableBytes()];
            bytes.getBytes(bytes.readerIndex(), body);
            bytes.release();
            return null;
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

    private static byte[] contents(FileChannel file) throws IOException {
        ByteBuffer all = ByteBuffer.allocate((int) file.size());
        while (all.hasRemaining()) {
            if (file.read(all, all.position()) < 0) {
                break;
            }
        }
        return all.array();
    }

    @Test
    void bodyUpToTheMemoryBoundIsSubmittedWholeInMemoryOnlyWhenItsLastPieceArrives() {
        Host host = new Host();
        RequestBodyBuffer buffer = new SpoolingBodyBuffer(-1, host);
        byte[] body = random(MEMORY, 1);
        List<ByteBuf> pieces = new ArrayList<>();
        for (int off = 0; off < MEMORY; off += 16 * 1024) {
            boolean last = off + 16 * 1024 == MEMORY;
            ByteBuf p = piece(body, off, off + 16 * 1024);
            pieces.add(p);
            assertEquals(RequestBodyBuffer.Flow.READ, buffer.add(p, last));
            assertEquals(last ? 1 : 0, host.submitted.size(), "runnable only once the body is complete");
        }
        assertArrayEquals(body, host.body);
        assertNull(host.file);
        for (ByteBuf p : pieces) {
            assertEquals(0, p.refCnt(), "the host's release of the body releases every piece");
        }
    }

    @Test
    void aBodyInOnePieceIsSubmittedAsThatPieceWithoutCopying() {
        Host host = new Host();
        RequestBodyBuffer buffer = new SpoolingBodyBuffer(-1, host);
        ByteBuf only = Unpooled.copiedBuffer(random(100, 2));
        buffer.add(only, true);
        assertSame(only, host.submitted.get(0));
    }

    @Test
    void anEmptyBodyIsSubmittedAtItsEnd() {
        Host host = new Host();
        RequestBodyBuffer buffer = new SpoolingBodyBuffer(-1, host);
        buffer.add(Unpooled.EMPTY_BUFFER, true);
        assertEquals(1, host.submitted.size());
        assertEquals(0, host.body.length);
        assertNull(host.file);
    }

    @Test
    void largerBodyIsSpooledToAFileAndSubmittedWholeOnlyWhenItsLastPieceArrives() throws IOException {
        Host host = new Host();
        RequestBodyBuffer buffer = new SpoolingBodyBuffer(-1, host);
        byte[] body = random(3 * MEMORY + 7, 3);
        List<ByteBuf> pieces = new ArrayList<>();
        int step = 50_000;
        for (int off = 0; off < body.length; off += step) {
            int to = Math.min(body.length, off + step);
            ByteBuf p = piece(body, off, to);
            pieces.add(p);
            assertEquals(RequestBodyBuffer.Flow.READ, buffer.add(p, to == body.length));
            assertEquals(to == body.length ? 1 : 0, host.submitted.size(), "never before the whole body");
        }
        assertNotNull(host.file, "a body over the memory bound reaches the host as a file");
        assertEquals(0, host.body.length);
        assertArrayEquals(body, contents(host.file));
        for (ByteBuf p : pieces) {
            assertEquals(0, p.refCnt(), "each piece is released once it is in the file");
        }
        host.file.close();
    }

    @Test
    void bodyGrowingPastTheLimitIsReleasedNeverSubmittedAndItsFileClosed() {
        Host host = new Host();
        RequestBodyBuffer buffer = new SpoolingBodyBuffer(2L * MEMORY, host);
        buffer.add(Unpooled.wrappedBuffer(new byte[2 * MEMORY]), false);
        ByteBuf over = Unpooled.wrappedBuffer(new byte[1]);
        assertEquals(RequestBodyBuffer.Flow.TOO_LARGE, buffer.add(over, true));
        assertEquals(0, over.refCnt());
        assertEquals(0, host.submitted.size());
        ByteBuf late = Unpooled.wrappedBuffer(new byte[1]);
        assertEquals(RequestBodyBuffer.Flow.READ, buffer.add(late, true));
        assertEquals(0, late.refCnt(), "nothing more is taken");
    }

    @Test
    void abandonReleasesWhatIsHeldAndSubmitsNothing() {
        Host host = new Host();
        RequestBodyBuffer held = new SpoolingBodyBuffer(-1, host);
        ByteBuf a = Unpooled.wrappedBuffer(new byte[10]);
        ByteBuf b = Unpooled.wrappedBuffer(new byte[10]);
        held.add(a, false);
        held.add(b, false);
        held.abandon();
        held.abandon();
        assertEquals(0, a.refCnt());
        assertEquals(0, b.refCnt());
        assertEquals(0, host.submitted.size());
    }

    @Test
    void aRefusedSubmitIsReportedAndTheRestOfTheBodyIsReleasedAsItArrives() {
        Host host = new Host();
        host.refuse = true;
        RequestBodyBuffer whole = new SpoolingBodyBuffer(-1, host);
        assertEquals(RequestBodyBuffer.Flow.REFUSED, whole.add(Unpooled.wrappedBuffer(new byte[3]), true));
        ByteBuf rest = Unpooled.wrappedBuffer(new byte[3]);
        assertEquals(RequestBodyBuffer.Flow.READ, whole.add(rest, true));
        assertEquals(0, rest.refCnt());
    }

    @Test
    void bodyWithNoNewByteForTheTimeoutIsReportedStalledOnceAndOneThatKeepsComingIsNot() {
        EmbeddedChannel loop = new EmbeddedChannel();
        loop.freezeTime();
        Host host = new Host();
        AtomicInteger stalls = new AtomicInteger();
        RequestBodyBuffer buffer = new SpoolingBodyBuffer(-1, host);
        buffer.watch(loop.eventLoop(), TimeUnit.SECONDS.toNanos(10), stalls::incrementAndGet);
        for (int i = 0; i < 5; i++) {
            loop.advanceTimeBy(6, TimeUnit.SECONDS);
            loop.runScheduledPendingTasks();
            buffer.add(Unpooled.wrappedBuffer(new byte[1]), false);
        }
        assertEquals(0, stalls.get(), "a byte every 6 s keeps a 10 s deadline away");
        loop.advanceTimeBy(9, TimeUnit.SECONDS);
        loop.runScheduledPendingTasks();
        assertEquals(0, stalls.get());
        loop.advanceTimeBy(1, TimeUnit.SECONDS);
        loop.runScheduledPendingTasks();
        assertEquals(1, stalls.get(), "10 s without a byte");
        buffer.abandon();
        loop.advanceTimeBy(60, TimeUnit.SECONDS);
        loop.runScheduledPendingTasks();
        assertEquals(1, stalls.get());

        RequestBodyBuffer done = new SpoolingBodyBuffer(-1, new Host());
        done.watch(loop.eventLoop(), TimeUnit.SECONDS.toNanos(10), stalls::incrementAndGet);
        done.add(Unpooled.wrappedBuffer(new byte[1]), true);
        loop.advanceTimeBy(60, TimeUnit.SECONDS);
        loop.runScheduledPendingTasks();
        assertEquals(1, stalls.get(), "a complete body has no deadline");
        assertFalse(loop.finish());
    }

    @Test
    void spoolFilesGoToTmpdirWhenItIsSetElseToJavaIoTmpdir() {
        assertEquals(java.nio.file.Path.of("/var/spool/x"), SpoolingBodyBuffer.spoolDir("/var/spool/x"));
        java.nio.file.Path fallback = java.nio.file.Path.of(System.getProperty("java.io.tmpdir"));
        assertEquals(fallback, SpoolingBodyBuffer.spoolDir(null));
        assertEquals(fallback, SpoolingBodyBuffer.spoolDir(""));
    }
}
