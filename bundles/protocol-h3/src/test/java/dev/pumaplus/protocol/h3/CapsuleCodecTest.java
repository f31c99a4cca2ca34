/*
 * Holds CapsuleCodec to byte vectors: CLOSE_WEBTRANSPORT_SESSION as the WebTransport drafts lay it out, its
 * reason's limit, DATA framing, and the reader's refusals (too long, cut short).
 */
package dev.pumaplus.protocol.h3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class CapsuleCodecTest {

    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s);
    }

    @Test
    void encodesCloseSessionAsTypeLengthCodeAndReason() {
        // 0x2843 as a 2-byte varint is 6843; length 6; code 4000 = 0x00000fa0; "bye".
        assertArrayEquals(hex("6843" + "07" + "00000fa0" + "627965"), CapsuleCodec.encodeClose(4000, "bye"));
        assertArrayEquals(hex("6843" + "04" + "ffffffff"), CapsuleCodec.encodeClose(0xFFFF_FFFFL, null));
    }

    @Test
    void decodesCloseSessionWithAnUnsignedCode() throws Exception {
        CapsuleCodec.Capsule capsule = CapsuleCodec.read(
                new ByteArrayInputStream(hex("6843" + "07" + "80000001" + "627965")), 2048);
        assertEquals(WebTransportCodes.CAPSULE_CLOSE_WEBTRANSPORT_SESSION, capsule.type());
        assertEquals(new CapsuleCodec.Close(0x8000_0001L, "bye"), CapsuleCodec.decodeClose(capsule.value()));
    }

    @Test
    void cutsAReasonAtTheLimitBetweenCharacters() {
        String reason = "a" + "é".repeat(600); // 1 + 1200 bytes
        byte[] capsule = CapsuleCodec.encodeClose(1, reason);
        CapsuleCodec.Close close = CapsuleCodec.decodeClose(java.util.Arrays.copyOfRange(capsule, 4, capsule.length));
        assertEquals(1023, close.reason().getBytes(StandardCharsets.UTF_8).length, "1 + 511 two-byte characters");
        assertEquals(reason.substring(0, 512), close.reason());
    }

    @Test
    void refusesAMalformedCloseValue() {
        assertNull(CapsuleCodec.decodeClose(hex("000001")), "shorter than its code");
        assertNull(CapsuleCodec.decodeClose(new byte[4 + 1025]), "reason over 1024 bytes");
    }

    @Test
    void wrapsACapsuleInADataFrame() {
        assertArrayEquals(hex("00" + "08" + "6843" + "05" + "00000000" + "21"),
                CapsuleCodec.dataFrame(hex("6843" + "05" + "00000000" + "21")));
    }

    @Test
    void refusesACapsuleLongerThanTheLimitBeforeReadingIt() {
        // Type 0x2843, length 0x4000_0000 (1 GiB), nothing behind it.
        assertThrows(CapsuleCodec.TooLongException.class,
                () -> CapsuleCodec.read(new ByteArrayInputStream(hex("6843" + "c000000040000000")), 2048));
    }

    @Test
    void reportsACapsuleCutShortAndTheEndBetweenCapsules() throws Exception {
        assertThrows(EOFException.class, () -> CapsuleCodec.read(new ByteArrayInputStream(hex("6843" + "07" + "0000")), 2048));
        assertThrows(EOFException.class, () -> CapsuleCodec.read(new ByteArrayInputStream(hex("6843")), 2048));
        assertNull(CapsuleCodec.read(new ByteArrayInputStream(new byte[0]), 2048));
    }
}
