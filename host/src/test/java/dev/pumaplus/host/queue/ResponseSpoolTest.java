/*
 * ResponseSpool: what the host holds of a response its client has not taken yet (worker → respond): pieces
 * pass straight through while the sink keeps up, are held in order (memory, then a spool file; file regions
 * as their file) while it is paused, and are dropped when the client goes away.
 */
package dev.pumaplus.host.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pumaplus.host.measure.QueueMetrics;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.FileRegion;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(5)
class ResponseSpoolTest {

    /** A sink that takes file regions and records them, as HTTP/1.1's does. */
    private static final class FileSink extends RecordingSink {
        final List<String> regions = new ArrayList<>();

        @Override
        public boolean acceptsFiles() {
            return true;
        }

        @Override
        public synchronized boolean file(FileRegion region, boolean endOfStream) {
            regions.add(region.position() + "+" + region.count() + (endOfStream ? " end" : ""));
            events.add("file" + (endOfStream ? " end" : ""));
            region.release();
            return acceptMore;
        }
    }

    private static ByteBuf ascii(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
    }

    private static FileChannel file(String content) throws IOException {
        Path path = Files.createTempFile("response-spool-test", ".bin");
        Files.writeString(path, content);
        FileChannel data = FileChannel.open(path, StandardOpenOption.READ);
        Files.delete(path);
        return data;
    }

    private static ResponseSpool spool(RecordingSink sink) {
        return new ResponseSpool(new ResponseRecord(sink, new QueueMetrics()), ByteBufAllocator.DEFAULT);
    }

    @Test
    void piecesPassStraightThroughWhileTheSinkKeepsUp() {
        RecordingSink sink = new RecordingSink();
        ResponseSpool spool = spool(sink);
        spool.body(ascii("a"), false);
        assertEquals("a", sink.bodyText(), "delivered in the same call: a streamed chunk is not held back");
        spool.body(ascii("b"), true);
        assertEquals(List.of("body", "body end"), sink.events);
        assertFalse(spool.holding());
    }

    @Test
    void aFileRegionHeldBehindBytesKeepsItsPlaceAndGoesToAFileSinkAsARegion() throws IOException {
        FileSink sink = new FileSink();
        sink.acceptMore = false;
        ResponseSpool spool = spool(sink);
        spool.body(ascii("head,"), false);
        spool.body(ascii("held,"), false);
        FileChannel data = file("0123456789");
        spool.file(data, 2, 5, false);
        spool.body(ascii("tail"), true);
        assertEquals(List.of("body"), sink.events, "the pause holds everything after the first piece");
        assertTrue(spool.holding());
        sink.acceptMore = true;
        spool.resume();
        assertEquals(List.of("body", "body", "file", "body end"), sink.events, "in the worker's order");
        assertEquals(List.of("2+5"), sink.regions);
        assertEquals("head,held,tail", sink.bodyText());
        assertFalse(spool.holding());
    }

    @Test
    void aFileRegionGoesToASinkWithoutFilesAsBytesInPiecesStoppingAtEachPause() throws IOException {
        RecordingSink sink = new RecordingSink();
        ResponseSpool spool = spool(sink);
        String content = "x".repeat(ResponseSpool.PIECE_BYTES) + "y".repeat(10);
        sink.acceptMore = false;
        spool.file(file(content), 0, content.length(), true);
        assertEquals(1, sink.bodies, "one piece, then the pause");
        sink.acceptMore = true;
        spool.resume();
        assertEquals(2, sink.bodies);
        assertEquals(content, sink.bodyText());
        assertEquals("body end", sink.events.get(1));
    }

    @Test
    void bytesPastTheMemoryBoundGoThroughTheSpoolFileAndItIsReusedOnceDrained() {
        RecordingSink sink = new RecordingSink();
        ResponseSpool spool = spool(sink);
        StringBuilder expected = new StringBuilder();
        for (int round = 0; round < 2; round++) {
            sink.acceptMore = false;
            spool.body(ascii("p"), false);
            expected.append('p');
            for (int i = 0; i < 3; i++) {
                String piece = Character.toString('a' + round * 3 + i).repeat(ResponseSpool.MEMORY_BYTES / 2);
                spool.body(ascii(piece), false);
                expected.append(piece);
            }
            sink.acceptMore = true;
            spool.resume();
            assertEquals(expected.toString(), sink.bodyText(), "round " + round);
        }
        spool.body(ascii("!"), true);
        assertEquals(expected + "!", sink.bodyText());
    }

    @Test
    void discardReleasesEverythingHeldAndLaterPiecesAreDropped() throws IOException {
        RecordingSink sink = new RecordingSink();
        sink.acceptMore = false;
        ResponseSpool spool = spool(sink);
        spool.body(ascii("a"), false);
        ByteBuf held = ascii("held");
        spool.body(held, false);
        FileChannel data = file("abc");
        spool.file(data, 0, 3, false);
        spool.discard();
        assertEquals(0, held.refCnt());
        assertFalse(data.isOpen());
        ByteBuf late = ascii("late");
        spool.body(late, true);
        assertEquals(0, late.refCnt());
        spool.resume();
        assertEquals("a", sink.bodyText());
        assertFalse(spool.holding());
    }

    @Test
    void anEndOfStreamWithNoBytesIsHeldAndDeliveredAlone() {
        RecordingSink sink = new RecordingSink();
        sink.acceptMore = false;
        ResponseSpool spool = spool(sink);
        spool.body(ascii("a"), false);
        spool.body(Unpooled.EMPTY_BUFFER, true);
        assertTrue(spool.holding());
        sink.acceptMore = true;
        spool.resume();
        assertEquals(List.of("body", "body end"), sink.events);
        assertFalse(spool.holding());
    }
}
