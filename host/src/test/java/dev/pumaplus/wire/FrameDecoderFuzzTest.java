/*
 * Fuzzes the host's worker-link decoder (FrameDecoder, first in every link pipeline) with corpus cases
 * mutated by FrameMutator: whatever a peer sends, the decoder yields frames, waits for more bytes, or
 * rejects the stream with its one ProtocolException, within a time bound and without buffering a length
 * above MAX_PAYLOAD.
 */
package dev.pumaplus.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.util.ResourceLeakDetector;
import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.BiConsumer;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Runs for {@code puma-plus.fuzz.seconds} (default 3: the CI run) over seeds {@code puma-plus.fuzz.seed}
 * (default 1), 2, 3, ... in turn; {@code bench/run frame-fuzz --minutes N} sets both. Every input is decoded
 * twice, as one buffer with {@link FrameDecoder#decodeOne} and in random chunks through the pipeline
 * handler, and both must agree; every frame that passes must also pass the host's typed decoder for its type.
 * A failure names the seed, the input number and the input's bytes.
 */
class FrameDecoderFuzzTest {

    private static final long SECONDS = Long.getLong("puma-plus.fuzz.seconds", 3);
    private static final long FIRST_SEED = Long.getLong("puma-plus.fuzz.seed", 1);
    private static final int INPUTS_PER_SEED = 2_000;
    /** The most one input may take to decode, both ways (a 1 MiB input on a loaded CI machine takes ~10 ms). */
    private static final Duration PER_INPUT = Duration.ofSeconds(2);
    /** A ProtocolException's message names the frame type, or an unknown type's code (docs/PROTOCOL.md, "Errors"). */
    private static final Pattern NAMES_THE_FRAME = Pattern.compile("\\A([A-Z_]+|0x[0-9a-f]{2}): .+", Pattern.DOTALL);

    /** What decoding one input gave: the frames (type/flags/length/payload), then an error or the bytes left over. */
    private record Outcome(List<String> frames, String error, int waitingBytes) {
    }

    /** What the Ruby codec makes of one input, in {@link #verdict}'s form (the worker's Frame.read and Wire.decode). */
    private static final String RUBY_VERDICTS = """
            require "puma_plus/wire"
            wire = PumaPlus::Wire
            $stdout.sync = true
            while (length = $stdin.read(4))
              io = StringIO.new($stdin.read(length.unpack1("N")).to_s)
              frames = []
              ending = begin
                while (frame = wire::Frame.read(io))
                  wire.decode(frame)
                  frames << "#{frame.type_name}/#{frame.flags}/#{frame.payload.bytesize}"
                end
                "end"
              rescue wire::ProtocolError => e
                e.message.include?("stream ended inside") ? "incomplete" : "error #{e.message[/\\A[^:]*/]}"
              end
              puts "#{frames.join(',')} #{ending}"
            end
            """;

    private static ResourceLeakDetector.Level leakDetection;

    // Paranoid leak tracking (the surefire default) costs ~50x here; decodeWhole checks the decoder's
    // references itself: once every frame is released, so is the input.
    @BeforeAll
    static void withoutLeakTracking() {
        leakDetection = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
    }

    @AfterAll
    static void restoreLeakTracking() {
        ResourceLeakDetector.setLevel(leakDetection);
    }

    @Test
    void everyMutatedStreamDecodesWaitsForMoreOrIsAProtocolErrorWithinTheBound() {
        long[] rejectedAndWaiting = new long[2];
        SplittableRandom chunks = new SplittableRandom(FIRST_SEED);
        long inputs = forEachInput((input, where) -> {
            Outcome outcome = checked(input, chunks, where);
            rejectedAndWaiting[0] += outcome.error() != null ? 1 : 0;
            rejectedAndWaiting[1] += outcome.waitingBytes() > 0 ? 1 : 0;
        });
        long rejected = rejectedAndWaiting[0];
        System.out.printf("frame fuzz (Java FrameDecoder): %d inputs from seed %d on in %d s: %d protocol errors,"
                + " %d waiting for more bytes, 0 crashes, 0 hangs%n", inputs, FIRST_SEED, SECONDS, rejected,
                rejectedAndWaiting[1]);
        assertTrue(inputs >= 1_000, "too few inputs to be a fuzz: " + inputs);
        assertTrue(rejected > 0 && rejected < inputs, "the mutations should yield both errors and frames");
    }

    /**
     * docs/PROTOCOL.md: "Both codecs reject exactly these". Every input goes to a Ruby process running the
     * worker's codec too; both must see the same frames (type, flags, length) and end the same way.
     */
    @Test
    void theRubyCodecGivesEveryMutatedStreamTheVerdictOfTheJavaCodec() throws IOException {
        Path gemLib = WireCorpusTest.corpus().resolve("../../../gem/lib").normalize();
        Process ruby = new ProcessBuilder("ruby", "-I", gemLib.toString(), "-e", RUBY_VERDICTS)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (DataOutputStream toRuby = new DataOutputStream(new BufferedOutputStream(ruby.getOutputStream()));
             BufferedReader fromRuby = new BufferedReader(
                     new InputStreamReader(ruby.getInputStream(), StandardCharsets.UTF_8))) {
            long inputs = forEachInput((input, where) -> {
                try {
                    toRuby.writeInt(input.length);
                    toRuby.write(input);
                    toRuby.flush();
                    String expected = verdict(decodeWhole(input, where));
                    assertEquals(expected, fromRuby.readLine(), where + ": the Ruby codec's verdict");
                } catch (IOException e) {
                    throw new UncheckedIOException(where + ": the Ruby codec's process", e);
                }
            });
            System.out.printf("frame fuzz (Java FrameDecoder vs Ruby Frame.read + Wire.decode): %d inputs from seed %d on"
                    + " in %d s, the same verdict on each%n", inputs, FIRST_SEED, SECONDS);
            assertTrue(inputs >= 1_000, "too few inputs to be a fuzz: " + inputs);
        } finally {
            ruby.destroy();
        }
    }

    /**
     * Calls {@code check} with each input of the seeds from FIRST_SEED on, INPUTS_PER_SEED per seed, until
     * SECONDS have passed, under an overall timeout; returns the number of inputs.
     */
    private static long forEachInput(BiConsumer<byte[], String> check) {
        return assertTimeoutPreemptively(Duration.ofSeconds(SECONDS + 60), () -> {
            long deadline = System.nanoTime() + SECONDS * 1_000_000_000L;
            long inputs = 0;
            for (long seed = FIRST_SEED; System.nanoTime() < deadline; seed++) {
                FrameMutator mutator = new FrameMutator(WireCorpusTest.corpus(), seed);
                for (int n = 0; n < INPUTS_PER_SEED && System.nanoTime() < deadline; n++, inputs++) {
                    byte[] input = mutator.next();
                    check.accept(input, "seed " + seed + " input " + n + " (" + input.length + " bytes: "
                            + HexFormat.of().formatHex(input, 0, Math.min(input.length, 256)) + ")");
                }
            }
            return inputs;
        });
    }

    /** An outcome as {@code TYPE/flags/length,... end|incomplete|error NAME}, the form RUBY_VERDICTS prints. */
    private static String verdict(Outcome outcome) {
        String frames = String.join(",", outcome.frames().stream()
                .map(frame -> frame.substring(0, frame.lastIndexOf('/'))).toList());
        String ending = outcome.error() != null ? "error " + outcome.error().substring(0, outcome.error().indexOf(':'))
                : outcome.waitingBytes() > 0 ? "incomplete" : "end";
        return frames + " " + ending;
    }

    @Test
    void aLengthAboveMaxPayloadIsRejectedFromTheHeaderAloneBeforeAnyPayloadIsBuffered() {
        ByteBuf header = Unpooled.buffer(Frame.HEADER_LENGTH);
        header.writeInt(FrameType.BODY << 24).writeInt(-1);
        ProtocolException e = assertThrows(ProtocolException.class, () -> FrameDecoder.decodeOne(header));
        assertEquals("BODY: payload length 4294967295 exceeds MAX_PAYLOAD 1048576", e.getMessage());
        header.release();
    }

    /** Decodes {@code input} both ways under the time bound; fails naming {@code where} unless all holds. */
    private static Outcome checked(byte[] input, SplittableRandom chunks, String context) {
        long started = System.nanoTime();
        Outcome whole;
        Outcome chunked;
        try {
            whole = decodeWhole(input, context);
            chunked = decodeInChunks(input, chunks);
        } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
            throw new AssertionError(context + ": the decoder crashed with " + e, e);
        }
        long took = System.nanoTime() - started;
        assertTrue(took < PER_INPUT.toNanos(), context + ": took " + took / 1_000_000 + " ms");
        assertEquals(whole.frames(), chunked.frames(), context + ": chunked decoding gave other frames");
        assertEquals(whole.error(), chunked.error(), context + ": chunked decoding gave another error");
        return whole;
    }

    /**
     * Decodes every frame of {@code input} with decodeOne. Asserts that each call makes progress, that "need
     * more" (null) leaves the reader index alone and happens only for a frame that is really incomplete and
     * whose length is within MAX_PAYLOAD, that a length above it is rejected from the 8 header bytes alone,
     * and that an error is a ProtocolException naming the frame.
     */
    private static Outcome decodeWhole(byte[] input, String context) {
        ByteBuf in = Unpooled.wrappedBuffer(input);
        List<String> frames = new ArrayList<>();
        try {
            while (true) {
                int before = in.readerIndex();
                long length = in.readableBytes() >= Frame.HEADER_LENGTH ? in.getUnsignedInt(before + 4) : -1;
                if (length > Frame.MAX_PAYLOAD && FrameType.isKnown(in.getUnsignedByte(before))) {
                    ByteBuf header = in.retainedSlice(before, Frame.HEADER_LENGTH);
                    try {
                        assertThrows(ProtocolException.class, () -> FrameDecoder.decodeOne(header),
                                context + ": a length of " + length + " must be refused from its header alone");
                    } finally {
                        header.release();
                    }
                }
                Frame frame;
                try {
                    frame = FrameDecoder.decodeOne(in);
                } catch (ProtocolException e) {
                    assertTrue(NAMES_THE_FRAME.matcher(e.getMessage()).matches(),
                            context + ": \"" + e.getMessage() + "\" does not name the frame");
                    assertEquals(before, in.readerIndex(), context + ": a rejected frame moved the reader index");
                    return new Outcome(frames, e.getMessage(), 0);
                }
                if (frame == null) {
                    assertEquals(before, in.readerIndex(), context + ": waiting for more moved the reader index");
                    assertTrue(length <= Frame.MAX_PAYLOAD, context + ": waits for a payload of " + length + " bytes");
                    assertTrue(in.readableBytes() < Frame.HEADER_LENGTH + Math.max(length, 0),
                            context + ": waits although the frame is complete");
                    return new Outcome(frames, null, in.readableBytes());
                }
                try {
                    assertTrue(in.readerIndex() >= before + Frame.HEADER_LENGTH, context + ": no progress");
                    frames.add(describe(frame));
                    decodeTyped(frame);
                } finally {
                    frame.release();
                }
                if (!in.isReadable()) {
                    return new Outcome(frames, null, 0);
                }
            }
        } finally {
            // (an empty input is the shared EMPTY_BUFFER, which is never freed)
            assertTrue(in.release() || input.length == 0, context + ": the decoder kept a reference to the input");
        }
    }

    /** Decodes {@code input} through the pipeline handler, written in random chunks, as a socket delivers it. */
    private static Outcome decodeInChunks(byte[] input, SplittableRandom chunks) {
        EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder());
        List<String> frames = new ArrayList<>();
        String error = null;
        try {
            for (int at = 0; at < input.length; ) {
                // small chunks split headers and length fields; a 1 MiB input goes in up to 16 pieces
                int size = Math.min(input.length - at, 1 + chunks.nextInt(Math.max(4096, input.length / 16)));
                try {
                    channel.writeInbound(Unpooled.wrappedBuffer(input, at, size));
                } catch (DecoderException e) {
                    // writeInbound rethrows the first exception; the decoder discards everything after it
                    assertInstanceOf(ProtocolException.class, e, "the pipeline decoder's only error");
                    error = error == null ? e.getMessage() : error;
                }
                at += size;
                for (Frame f; (f = channel.readInbound()) != null; ) {
                    frames.add(describe(f));
                    f.release();
                }
            }
            return new Outcome(frames, error, 0);
        } finally {
            channel.finishAndReleaseAll();
        }
    }

    /** FrameDecoder's promise that what it passes decodes: the host's typed decoder reads it without error. */
    private static void decodeTyped(Frame frame) {
        ByteBuf payload = frame.payload();
        switch (frame.type()) {
            case FrameType.HELLO -> Hello.decode(payload);
            case FrameType.WELCOME -> Welcome.decode(payload);
            case FrameType.GOAWAY -> Goaway.decode(payload);
            case FrameType.WORKER_COUNT -> WorkerCount.decode(payload);
            case FrameType.EXTRA_SLOTS -> ExtraSlots.decode(payload);
            case FrameType.REQUEST -> Request.decode(payload);
            case FrameType.RESPONSE_HEAD, FrameType.HIJACK_HEAD -> ResponseHead.decode(frame);
            case FrameType.EARLY_HINTS -> PairList.decode(payload, 0);
            case FrameType.RESPONSE_FILE -> ResponseFile.decode(payload);
            default -> {
                // CONFIG, BODY, RESPONSE_BODY, RESPONSE_ABORT carry bytes; PHASED_RESTART, HIJACK nothing
            }
        }
    }

    private static String describe(Frame frame) {
        ByteBuf payload = frame.payload();
        String bytes = payload.readableBytes() <= 256 ? ByteBufUtil.hexDump(payload)
                : payload.readableBytes() + " bytes, hash " + ByteBufUtil.hashCode(payload);
        return FrameType.name(frame.type()) + "/" + frame.flags() + "/" + payload.readableBytes() + "/" + bytes;
    }
}
