/*
 * The pair-list payload layout shared by REQUEST (the Rack env the host builds) and RESPONSE_HEAD (the
 * headers a worker returns): u16 name length, name, u32 value length, value, repeated.
 */
package dev.pumaplus.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.AbstractMap.SimpleImmutableEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads and writes pair lists. Names and values are opaque bytes; on the Java side each byte is one
 * ISO-8859-1 char, so any byte sequence round-trips through a {@link String} unchanged. Stateless and
 * thread-safe.
 */
public final class PairList {

    private PairList() {
    }

    /** Bytes {@code pairs} take on the wire. Chars above U+00FF are not allowed (they are not bytes). */
    public static int encodedLength(List<? extends Map.Entry<String, String>> pairs) {
        int length = 0;
        for (Map.Entry<String, String> pair : pairs) {
            length += 2 + pair.getKey().length() + 4 + pair.getValue().length();
        }
        return length;
    }

    /**
     * Appends {@code pairs} to {@code out}.
     *
     * @throws IllegalArgumentException when a name is longer than 65,535 bytes
     */
    public static void write(List<? extends Map.Entry<String, String>> pairs, ByteBuf out) {
        for (Map.Entry<String, String> pair : pairs) {
            write(pair.getKey(), pair.getValue(), out);
        }
    }

    /**
     * Appends one pair to {@code out}.
     *
     * @throws IllegalArgumentException when {@code name} is longer than 65,535 bytes
     */
    public static void write(String name, String value, ByteBuf out) {
        if (name.length() > 0xFFFF) {
            throw new IllegalArgumentException("pair name longer than 65535 bytes");
        }
        out.writeShort(name.length());
        out.writeCharSequence(name, StandardCharsets.ISO_8859_1);
        out.writeInt(value.length());
        out.writeCharSequence(value, StandardCharsets.ISO_8859_1);
    }

    /** A new buffer holding exactly {@code pairs}; the caller owns it. */
    public static ByteBuf encode(ByteBufAllocator alloc, List<? extends Map.Entry<String, String>> pairs) {
        ByteBuf out = alloc.buffer(encodedLength(pairs));
        write(pairs, out);
        return out;
    }

    /**
     * Decodes the readable bytes of {@code in} from {@code offset} (relative to the reader index) to the
     * end, without moving the reader index.
     *
     * @throws ProtocolException when a pair is truncated
     */
    public static List<Map.Entry<String, String>> decode(ByteBuf in, int offset) {
        List<Map.Entry<String, String>> pairs = new ArrayList<>();
        int index = in.readerIndex() + offset;
        int end = in.writerIndex();
        while (index < end) {
            if (end - index < 2) {
                throw new ProtocolException("truncated pair list: name length cut off");
            }
            int nameLength = in.getUnsignedShort(index);
            index += 2;
            if (end - index < nameLength + 4L) {
                throw new ProtocolException("truncated pair list: name or value length cut off");
            }
            String name = in.toString(index, nameLength, StandardCharsets.ISO_8859_1);
            index += nameLength;
            long valueLength = in.getUnsignedInt(index);
            index += 4;
            if (end - index < valueLength) {
                throw new ProtocolException("truncated pair list: value of " + name + " claims "
                        + valueLength + " bytes, " + (end - index) + " left");
            }
            String value = in.toString(index, (int) valueLength, StandardCharsets.ISO_8859_1);
            index += (int) valueLength;
            pairs.add(new SimpleImmutableEntry<>(name, value));
        }
        return pairs;
    }

    /**
     * Checks that the readable bytes of {@code in} from {@code offset} are a complete pair list, without
     * allocating.
     *
     * @throws ProtocolException when a pair is truncated
     */
    public static void validate(ByteBuf in, int offset) {
        long index = in.readerIndex() + offset;
        long end = in.writerIndex();
        while (index < end) {
            if (end - index < 2) {
                throw new ProtocolException("truncated pair list: name length cut off");
            }
            int nameLength = in.getUnsignedShort((int) index);
            index += 2 + nameLength;
            if (end - index < 4) {
                throw new ProtocolException("truncated pair list: name or value length cut off");
            }
            long valueLength = in.getUnsignedInt((int) index);
            index += 4;
            if (end - index < valueLength) {
                throw new ProtocolException("truncated pair list: value claims " + valueLength + " bytes, "
                        + (end - index) + " left");
            }
            index += valueLength;
        }
    }
}
