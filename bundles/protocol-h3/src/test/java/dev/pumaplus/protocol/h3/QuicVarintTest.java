/*
 * Holds QuicVarint to RFC 9000's own examples (Appendix A.1) and its shortest-form boundaries.
 */
package dev.pumaplus.protocol.h3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class QuicVarintTest {

    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s);
    }

    @Test
    void decodesRfc9000AppendixExamples() throws Exception {
        assertEquals(151288809941952652L, QuicVarint.read(ByteBuffer.wrap(hex("c2197c5eff14e88c"))));
        assertEquals(494878333L, QuicVarint.read(ByteBuffer.wrap(hex("9d7f3e7d"))));
        assertEquals(15293L, QuicVarint.read(ByteBuffer.wrap(hex("7bbd"))));
        assertEquals(37L, QuicVarint.read(ByteBuffer.wrap(hex("25"))));
        assertEquals(37L, QuicVarint.read(ByteBuffer.wrap(hex("4025"))), "a longer form than needed is valid");
        assertEquals(494878333L, QuicVarint.read(new ByteArrayInputStream(hex("9d7f3e7d"))));
    }

    @Test
    void encodesInTheShortestForm() {
        assertArrayEquals(hex("c2197c5eff14e88c"), QuicVarint.encode(151288809941952652L));
        assertArrayEquals(hex("9d7f3e7d"), QuicVarint.encode(494878333L));
        assertArrayEquals(hex("7bbd"), QuicVarint.encode(15293L));
        assertArrayEquals(hex("25"), QuicVarint.encode(37L));
        assertArrayEquals(hex("3f"), QuicVarint.encode(63));
        assertArrayEquals(hex("4040"), QuicVarint.encode(64));
        assertArrayEquals(hex("7fff"), QuicVarint.encode(16383));
        assertArrayEquals(hex("80004000"), QuicVarint.encode(16384));
        assertArrayEquals(hex("ffffffffffffffff"), QuicVarint.encode(QuicVarint.MAX));
    }

    @Test
    void refusesValuesOutsideTheRangeAndReportsTruncation() {
        assertThrows(IllegalArgumentException.class, () -> QuicVarint.encode(-1));
        assertThrows(IllegalArgumentException.class, () -> QuicVarint.encode(QuicVarint.MAX + 1));
        assertThrows(BufferUnderflowException.class, () -> QuicVarint.read(ByteBuffer.wrap(hex("9d7f"))));
        assertThrows(EOFException.class, () -> QuicVarint.read(new ByteArrayInputStream(hex("9d7f"))));
        assertEquals(-1, assertDoesNotThrowRead(new byte[0]), "end of stream before a varint is -1");
    }

    private static long assertDoesNotThrowRead(byte[] bytes) {
        try {
            return QuicVarint.read(new ByteArrayInputStream(bytes));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
