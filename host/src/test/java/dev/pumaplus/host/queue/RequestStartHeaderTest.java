/*
 * Claims about reading X-Request-Start at submit: the unit is inferred from the magnitude, the t= prefix
 * and fractions are understood, garbage is ignored, and the queue records upstream time on its own.
 */
package dev.pumaplus.host.queue;

import org.HdrHistogram.Histogram;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.pumaplus.spi.RequestHead;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import dev.pumaplus.host.measure.QueueMetrics;

@Timeout(10)
class RequestStartHeaderTest {

    /** 2023-11-14T22:13:20Z, as epoch ns. */
    private static final long NOW = 1_700_000_000_000_000_000L;

    private final QueueFixture queue = new QueueFixture();
    private final Dispatcher dispatcher = queue.dispatcher;

    @AfterEach
    void releaseBuffers() {
        queue.releaseAll();
    }

    @Test
    void unitIsInferredFromTheMagnitudeOfSecondsMillisMicrosOrNanos() {
        assertEquals(1_699_999_999_000_000_000L, RequestStartHeader.epochNanos("1699999999", NOW));
        assertEquals(1_699_999_999_123_000_000L, RequestStartHeader.epochNanos("1699999999123", NOW));
        assertEquals(1_699_999_999_123_456_000L, RequestStartHeader.epochNanos("1699999999123456", NOW));
        assertEquals(1_699_999_999_123_456_789L, RequestStartHeader.epochNanos("1699999999123456789", NOW));
    }

    @Test
    void tPrefixAndFractionsAreUnderstood() {
        assertEquals(1_699_999_999_123_000_000L, RequestStartHeader.epochNanos("t=1699999999.123", NOW));
        assertEquals(1_699_999_999_123_456_789L, RequestStartHeader.epochNanos("t=1699999999.1234567891", NOW));
        assertEquals(1_699_999_999_123_500_000L, RequestStartHeader.epochNanos(" 1699999999123.5 ", NOW));
        assertEquals(1_699_999_999_123_456_000L, RequestStartHeader.epochNanos("t=1699999999123456", NOW));
    }

    @Test
    void garbageIsIgnored() {
        for (String bad : List.of("", "t=", "abc", "-1699999999", "1699999999.1.2", "t=1699999999s", "0",
                "99999999999999999999999", "1.7e9", "t = 1699999999")) {
            assertEquals(RequestStartHeader.INVALID, RequestStartHeader.epochNanos(bad, NOW), bad);
        }
    }

    @Test
    void upstreamTimeIsRecordedOnItsOwnAndOnlyWithinAnHour() {
        QueueMetrics metrics = dispatcher.metrics();
        long t2 = System.nanoTime();
        long wallAtT2 = metrics.epochNanosAt(t2);
        long millisAgo = (wallAtT2 - 250_000_000L) / 1_000_000L; // stamped 250 ms before T2, in ms
        submit(t2, Long.toString(millisAgo));
        submit(t2, "t=" + (wallAtT2 / 1_000_000_000L - 7200)); // two hours: ignored
        submit(t2, Long.toString(wallAtT2 + 60_000_000_000L)); // a minute in the future: ignored
        submit(t2, "soon");
        metrics.tick(System.nanoTime(), queue.admission.submitted());
        assertEquals(1, (long) metrics.upstream.readCumulative(Histogram::getTotalCount));
        assertEquals(250_000_000L, (long) metrics.upstream.readCumulative(Histogram::getMaxValue), 4_000_000L);
        assertEquals(0, (long) metrics.queue.readCumulative(Histogram::getTotalCount), "none dispatched: no queue time");
        assertEquals(0, (long) metrics.bodyWait.readCumulative(Histogram::getTotalCount), "body wait ends in the worker: none yet");
    }

    private void submit(long t2, String requestStart) {
        RequestHead head = new RequestHead("GET", "/", "HTTP/1.1", "http", new InetSocketAddress("127.0.0.1", 80),
                new InetSocketAddress("127.0.0.1", 5000), List.of(Map.entry("x-request-start", requestStart)),
                t2 - 1000, t2);
        queue.admission.submit(new Object(), head, Unpooled.EMPTY_BUFFER, null, new RecordingSink());
    }
}
