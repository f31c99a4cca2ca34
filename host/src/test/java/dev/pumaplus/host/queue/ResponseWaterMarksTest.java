/*
 * ResponseWaterMarks: the water marks every protocol's response sink applies to a slow client.
 */
package dev.pumaplus.host.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pumaplus.spi.ResponseBackpressure;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(5)
class ResponseWaterMarksTest {

    private static final long PIECE = 64 << 10;

    @Test
    void pausesOncePastOneMebibyteAndResumesOnceAtTheLowWaterMark() {
        ResponseBackpressure b = new ResponseWaterMarks();
        int pieces = 0;
        ResponseBackpressure.Pause pause;
        do {
            pause = b.pause(b.accepted(PIECE), false);
            pieces++;
        } while (pause == ResponseBackpressure.Pause.NONE);
        assertEquals(ResponseBackpressure.Pause.STARTED, pause);
        assertEquals(ResponseBackpressure.HIGH_WATER_BYTES / PIECE + 1, pieces, "the first piece past 1 MiB pauses");
        assertEquals(ResponseBackpressure.Pause.CONTINUED, b.pause(b.accepted(PIECE), false),
                "a piece accepted while paused does not start a second pause");
        int resumes = 0;
        while (b.unwritten() > 0) {
            if (b.written(PIECE)) {
                resumes++;
                assertTrue(b.unwritten() <= ResponseBackpressure.LOW_WATER_BYTES);
                assertTrue(b.unwritten() > ResponseBackpressure.LOW_WATER_BYTES - PIECE, "resumed at the mark, not later");
            }
        }
        assertEquals(1, resumes, "exactly one resume answers the pause");
    }

    @Test
    void theLastPieceNeverPausesAndNothingWrittenNeverResumes() {
        ResponseBackpressure b = new ResponseWaterMarks();
        assertEquals(ResponseBackpressure.Pause.NONE, b.pause(b.accepted(4 << 20), true));
        assertFalse(b.written(0));
        assertFalse(b.written(4 << 20), "no pause was taken, so there is nothing to resume");
    }

    @Test
    void aPauseTakenAfterTheWritesDrainedIsTakenBack() {
        ResponseBackpressure b = new ResponseWaterMarks();
        long count = b.accepted(2 << 20);
        assertFalse(b.written(2 << 20)); // drained before the host asked whether to pause
        assertEquals(ResponseBackpressure.Pause.NONE, b.pause(count, false));
    }
}
