/*
 * Holds DatagramCodec to byte vectors: the quarter stream id prefix of RFC 9297 §2.1 and a truncated one.
 */
package dev.pumaplus.protocol.h3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class DatagramCodecTest {

    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s);
    }

    @Test
    void prefixesThePayloadWithTheQuarterStreamId() {
        assertArrayEquals(hex("00" + "6869"), DatagramCodec.encode(0, hex("6869")));
        assertArrayEquals(hex("01" + "6869"), DatagramCodec.encode(4, hex("6869")));
        assertArrayEquals(hex("4040"), DatagramCodec.encode(256, new byte[0]), "stream 256: quarter 64, two bytes");
    }

    @Test
    void decodesTheSessionAndPayload() {
        DatagramCodec.Datagram d = DatagramCodec.decode(hex("4040" + "ff00"));
        assertEquals(256, d.sessionId());
        assertArrayEquals(hex("ff00"), d.payload());
        assertEquals(8, DatagramCodec.decode(hex("02")).sessionId(), "an empty payload is a datagram");
    }

    @Test
    void refusesAFrameWithoutAWholeQuarterStreamId() {
        assertNull(DatagramCodec.decode(new byte[0]));
        assertNull(DatagramCodec.decode(hex("80")), "a 4-byte varint cut at one byte");
    }
}
