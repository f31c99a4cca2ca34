/*
 * Makes hostile worker-link byte streams for FrameDecoderFuzzTest: each is one or more golden-corpus cases
 * (docs/protocol/corpus/, the bytes a peer may really send) mangled the way a broken or malicious peer would,
 * so the fuzz reaches the decoder's header, length and payload checks instead of stopping at the first byte.
 */
package dev.pumaplus.wire;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * A seeded mutator over the corpus: the same seed gives the same inputs, so a failure names its seed and
 * input number and reproduces. Operators (one to four per input): bit flip, random byte, truncation,
 * length-field tampering (0, ±1, MAX_PAYLOAD, MAX_PAYLOAD + 1, 2^32 - 1, random), type tampering (another
 * defined type or any byte), an "interesting" u16/u32 (0, 0x7fff..., 0xffff...) written anywhere (the pair
 * list's own length fields), concatenation with another case, a cut, and plain random bytes. Not thread-safe.
 */
final class FrameMutator {

    private static final int[] INTERESTING_LENGTHS = {0, 1, Frame.MAX_PAYLOAD - 1, Frame.MAX_PAYLOAD,
        Frame.MAX_PAYLOAD + 1, Integer.MAX_VALUE, -1};
    private static final int[] KNOWN_TYPES = {FrameType.HELLO, FrameType.WELCOME, FrameType.GOAWAY,
        FrameType.CONFIG, FrameType.PHASED_RESTART, FrameType.WORKER_COUNT, FrameType.EXTRA_SLOTS, FrameType.REQUEST,
        FrameType.BODY, FrameType.RESPONSE_HEAD, FrameType.RESPONSE_BODY, FrameType.RESPONSE_ABORT, FrameType.HIJACK,
        FrameType.HIJACK_HEAD, FrameType.EARLY_HINTS, FrameType.RESPONSE_FILE};

    private final List<byte[]> seeds;
    private final SplittableRandom random;

    /** @param corpus the golden corpus directory; every {@code .bin} (valid or not) is a seed */
    FrameMutator(Path corpus, long seed) {
        try (Stream<Path> files = Files.list(corpus)) {
            this.seeds = files.filter(p -> p.toString().endsWith(".bin")).sorted().map(FrameMutator::read).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.random = new SplittableRandom(seed);
    }

    /** How many corpus cases seed the mutations. */
    int seedCount() {
        return seeds.size();
    }

    /** The next hostile input. */
    byte[] next() {
        byte[] input = pick();
        int operators = 1 + random.nextInt(4);
        for (int i = 0; i < operators; i++) {
            input = mutate(input);
        }
        return input;
    }

    private byte[] pick() {
        return seeds.get(random.nextInt(seeds.size()));
    }

    private byte[] mutate(byte[] input) {
        return switch (random.nextInt(10)) {
            case 0 -> flipBit(input);
            case 1 -> setByte(input, random.nextInt(256));
            case 2 -> Arrays.copyOf(input, input.length == 0 ? 0 : random.nextInt(input.length));
            case 3 -> tamperLength(input);
            case 4 -> tamperType(input);
            case 5 -> writeInteresting(input);
            case 6 -> concat(input, pick());
            case 7 -> cut(input);
            case 8 -> concat(input, randomBytes(1 + random.nextInt(64)));
            default -> randomBytes(random.nextInt(48));
        };
    }

    private byte[] flipBit(byte[] input) {
        if (input.length == 0) {
            return input;
        }
        byte[] out = input.clone();
        out[random.nextInt(out.length)] ^= (byte) (1 << random.nextInt(8));
        return out;
    }

    private byte[] setByte(byte[] input, int value) {
        if (input.length == 0) {
            return input;
        }
        byte[] out = input.clone();
        out[random.nextInt(out.length)] = (byte) value;
        return out;
    }

    private byte[] tamperLength(byte[] input) {
        List<Integer> headers = headerOffsets(input);
        if (headers.isEmpty()) {
            return input;
        }
        int at = headers.get(random.nextInt(headers.size()));
        byte[] out = input.clone();
        int old = readInt(out, at + 4);
        int[] choices = {INTERESTING_LENGTHS[random.nextInt(INTERESTING_LENGTHS.length)], old + 1, old - 1,
            random.nextInt()};
        writeInt(out, at + 4, choices[random.nextInt(choices.length)]);
        return out;
    }

    private byte[] tamperType(byte[] input) {
        List<Integer> headers = headerOffsets(input);
        if (headers.isEmpty()) {
            return input;
        }
        byte[] out = input.clone();
        int type = random.nextBoolean() ? KNOWN_TYPES[random.nextInt(KNOWN_TYPES.length)] : random.nextInt(256);
        out[headers.get(random.nextInt(headers.size()))] = (byte) type;
        return out;
    }

    private byte[] writeInteresting(byte[] input) {
        if (input.length < 4) {
            return input;
        }
        byte[] out = input.clone();
        int at = random.nextInt(out.length - 3);
        int value = INTERESTING_LENGTHS[random.nextInt(INTERESTING_LENGTHS.length)];
        if (random.nextBoolean()) {
            out[at] = (byte) (value >>> 8);
            out[at + 1] = (byte) value;
        } else {
            writeInt(out, at, value);
        }
        return out;
    }

    private byte[] cut(byte[] input) {
        if (input.length < 2) {
            return input;
        }
        int from = random.nextInt(input.length);
        int to = from + random.nextInt(input.length - from);
        byte[] out = new byte[input.length - (to - from)];
        System.arraycopy(input, 0, out, 0, from);
        System.arraycopy(input, to, out, from, input.length - to);
        return out;
    }

    private byte[] randomBytes(int count) {
        byte[] out = new byte[count];
        for (int i = 0; i < count; i++) {
            out[i] = (byte) random.nextInt(256);
        }
        return out;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** Offsets of the frame headers found by walking the declared lengths from byte 0. */
    private static List<Integer> headerOffsets(byte[] input) {
        List<Integer> offsets = new ArrayList<>();
        long at = 0;
        while (at + Frame.HEADER_LENGTH <= input.length) {
            offsets.add((int) at);
            at += Frame.HEADER_LENGTH + (readInt(input, (int) at + 4) & 0xFFFFFFFFL);
        }
        return offsets;
    }

    private static int readInt(byte[] bytes, int at) {
        return ((bytes[at] & 0xFF) << 24) | ((bytes[at + 1] & 0xFF) << 16) | ((bytes[at + 2] & 0xFF) << 8)
                | (bytes[at + 3] & 0xFF);
    }

    private static void writeInt(byte[] bytes, int at, int value) {
        bytes[at] = (byte) (value >>> 24);
        bytes[at + 1] = (byte) (value >>> 16);
        bytes[at + 2] = (byte) (value >>> 8);
        bytes[at + 3] = (byte) value;
    }

    private static byte[] read(Path path) {
        try {
            return Files.readAllBytes(path);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
