/*
 * Holds the Java wire codec to the golden corpus in docs/protocol/corpus/ that the Ruby codec is held to
 * as well: every case is decoded, encoded and compared byte for byte.
 */
package dev.pumaplus.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

@Timeout(30)
class WireCorpusTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    static Path corpus() {
        String configured = System.getProperty("puma-plus.corpus");
        Path dir = configured != null ? Path.of(configured) : Path.of("../docs/protocol/corpus");
        if (!Files.isDirectory(dir)) {
            dir = Path.of("docs/protocol/corpus");
        }
        assertTrue(Files.isDirectory(dir), "corpus directory not found: " + dir.toAbsolutePath());
        return dir;
    }

    static Stream<String> validCases() throws IOException {
        return cases().filter(name -> !name.startsWith("invalid-"));
    }

    static Stream<String> invalidCases() throws IOException {
        return cases().filter(name -> name.startsWith("invalid-"));
    }

    private static Stream<String> cases() throws IOException {
        try (Stream<Path> files = Files.list(corpus())) {
            List<String> names = files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".json"))
                    .map(n -> n.substring(0, n.length() - ".json".length()))
                    .sorted()
                    .toList();
            return names.stream();
        }
    }

    @Test
    void corpusHasValidAndInvalidCasesEachWithBothFiles() throws IOException {
        List<String> all = cases().toList();
        assertTrue(all.size() >= 20, "expected the full corpus, found " + all);
        assertTrue(all.stream().anyMatch(n -> n.startsWith("invalid-")));
        for (String name : all) {
            assertTrue(Files.exists(corpus().resolve(name + ".bin")), name + ".bin missing");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validCases")
    void decodingTheBinaryYieldsTheFramesOfTheJson(String name) throws IOException {
        JsonNode expected = JSON.readTree(corpus().resolve(name + ".json").toFile()).get("frames");
        byte[] bin = Files.readAllBytes(corpus().resolve(name + ".bin"));
        EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder());
        channel.writeInbound(Unpooled.wrappedBuffer(bin));
        List<Frame> frames = new ArrayList<>();
        for (Frame f; (f = channel.readInbound()) != null; ) {
            frames.add(f);
        }
        assertEquals(expected.size(), frames.size(), "frame count");
        for (int i = 0; i < frames.size(); i++) {
            assertFrameMatches(expected.get(i), frames.get(i), name + " frame " + i);
            frames.get(i).release();
        }
        assertFalse(channel.finish());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validCases")
    void decodingByteByByteYieldsTheSameFrames(String name) throws IOException {
        JsonNode expected = JSON.readTree(corpus().resolve(name + ".json").toFile()).get("frames");
        byte[] bin = Files.readAllBytes(corpus().resolve(name + ".bin"));
        if (bin.length > 100_000) {
            return; // byte-at-a-time over 1 MiB is slow and proves nothing new
        }
        EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder());
        for (byte b : bin) {
            channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
        }
        int count = 0;
        for (Frame f; (f = channel.readInbound()) != null; count++) {
            assertFrameMatches(expected.get(count), f, name + " frame " + count);
            f.release();
        }
        assertEquals(expected.size(), count);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validCases")
    void encodingTheJsonYieldsTheBinaryExactly(String name) throws IOException {
        JsonNode expected = JSON.readTree(corpus().resolve(name + ".json").toFile()).get("frames");
        byte[] bin = Files.readAllBytes(corpus().resolve(name + ".bin"));
        EmbeddedChannel channel = new EmbeddedChannel(FrameEncoder.INSTANCE);
        for (JsonNode frame : expected) {
            channel.write(frameOf(frame));
        }
        channel.flush();
        ByteBuf all = Unpooled.buffer();
        for (ByteBuf b; (b = channel.readOutbound()) != null; ) {
            all.writeBytes(b);
            b.release();
        }
        byte[] actual = new byte[all.readableBytes()];
        all.readBytes(actual);
        assertArrayEquals(bin, actual, name);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidCases")
    void invalidCasesAreRejectedAsProtocolErrorsNamingTheFrame(String name) throws IOException {
        JsonNode json = JSON.readTree(corpus().resolve(name + ".json").toFile());
        assertEquals("protocol", json.get("error").asText());
        byte[] bin = Files.readAllBytes(corpus().resolve(name + ".bin"));
        EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder());
        DecoderException e = assertThrows(DecoderException.class,
                () -> channel.writeInbound(Unpooled.wrappedBuffer(bin)));
        assertInstanceOf(ProtocolException.class, e);
        String frame = json.get("frame").asText();
        assertTrue(e.getMessage().startsWith(frame + ": "), "\"" + e.getMessage() + "\" names " + frame);
        Object leaked = channel.readInbound();
        assertEquals(null, leaked, "nothing is decoded from an invalid case");
    }

    @Test
    void everyFrameTypeHasAnInvalidCase() throws IOException {
        List<String> named = new ArrayList<>();
        for (String name : invalidCases().toList()) {
            named.add(JSON.readTree(corpus().resolve(name + ".json").toFile()).get("frame").asText());
        }
        for (int type = 0; type < 0x100; type++) {
            if (FrameType.isKnown(type)) {
                assertTrue(named.contains(FrameType.name(type)), FrameType.name(type) + " has no invalid case");
            }
        }
    }

    @Test
    void aHelloOfRoleWorkerOrShepherdIgnoresWhatFollowsItsFixedFields() {
        ByteBuf payload = new Hello(Protocol.VERSION, Hello.ROLE_SHEPHERD, 7, 1, 0, 0).encode(ByteBufAllocator.DEFAULT)
                .writeBytes("fork rack3".getBytes(StandardCharsets.US_ASCII));
        assertEquals(new Hello(Protocol.VERSION, Hello.ROLE_SHEPHERD, 7, 1, 0, 0), Hello.decode(payload));
        payload.release();
    }

    @Test
    void aRecordTheHostCouldNotSendIsRefusedBeforeEncoding() {
        assertThrows(IllegalArgumentException.class, () -> new WorkerCount(0));
        assertThrows(IllegalArgumentException.class, () -> new ExtraSlots(1L << 32));
        assertThrows(IllegalArgumentException.class, () -> new Hello(Protocol.VERSION, Hello.ROLE_HIJACK, 1, 1, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new Hello(Protocol.VERSION, Hello.ROLE_WORKER, 1, 1, 0, 0, 5));
    }

    @Test
    void typedDecodersRejectShortFixedFieldsAndTruncatedPairs() {
        assertThrows(ProtocolException.class, () -> Hello.decode(Unpooled.wrappedBuffer(new byte[19])));
        assertThrows(ProtocolException.class, () -> WorkerCount.decode(Unpooled.wrappedBuffer(new byte[4])));
        ByteBuf truncated = Unpooled.buffer().writeShort(4).writeBytes("PATH".getBytes(StandardCharsets.US_ASCII))
                .writeInt(10).writeBytes("/ab".getBytes(StandardCharsets.US_ASCII));
        assertThrows(ProtocolException.class, () -> PairList.decode(truncated, 0));
        ByteBuf cutName = Unpooled.buffer().writeShort(4).writeBytes("PA".getBytes(StandardCharsets.US_ASCII));
        assertThrows(ProtocolException.class, () -> PairList.decode(cutName, 0));
        assertThrows(ProtocolException.class, () -> ResponseHead.decode(Unpooled.wrappedBuffer(new byte[27]), 0));
        assertThrows(ProtocolException.class,
                () -> ResponseHead.decode(Unpooled.wrappedBuffer(new byte[35]), ResponseHead.GVL_WAIT));
        assertThrows(ProtocolException.class, () -> Request.decode(Unpooled.wrappedBuffer(new byte[23])));
    }

    @Test
    void requestTimingIsWrittenIntoThePayloadsRoomWithoutACopy() {
        List<Map.Entry<String, String>> env = List.of(Map.entry("PATH_INFO", "/x"));
        ByteBuf payload = Request.startPayload(ByteBufAllocator.DEFAULT, PairList.encodedLength(env));
        PairList.write(env, payload);
        Frame frame = Request.frame(payload, 10, 20, 30, true);
        assertSame(payload, frame.payload(), "the frame carries the payload built at submit, not a copy");
        Request decoded = Request.decode(frame.payload());
        assertEquals(new Request(10, 20, 30, List.of(Map.entry("PATH_INFO", "/x"))).env(), decoded.env());
        assertEquals(10, decoded.headersParsedNanos());
        assertEquals(20, decoded.runnableNanos());
        assertEquals(30, decoded.dispatchedNanos());
        frame.release();
        assertEquals(0, payload.refCnt(), "the payload was handed over");
    }

    @Test
    void oversizedLengthIsRejectedBeforeThePayloadArrives() {
        EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder());
        ByteBuf header = Unpooled.buffer().writeByte(FrameType.BODY).writeMedium(0).writeInt(Frame.MAX_PAYLOAD + 1);
        assertThrows(ProtocolException.class, () -> channel.writeInbound(header));
    }

    // --- JSON <-> Frame -------------------------------------------------------------------------------

    private static void assertFrameMatches(JsonNode expected, Frame actual, String where) {
        assertEquals(expected.get("type").asText(), FrameType.name(actual.type()), where + " type");
        assertEquals(flagsOf(expected), actual.flags(), where + " flags");
        ByteBuf p = actual.payload();
        switch (actual.type()) {
            case FrameType.HELLO -> {
                Hello h = Hello.decode(p);
                assertEquals(expected.get("version").asInt(), h.version(), where);
                assertEquals(expected.get("role").asInt(), h.role(), where);
                assertEquals(expected.get("pid").asLong(), h.pid(), where);
                assertEquals(expected.get("generation").asLong(), h.generation(), where);
                assertEquals(expected.get("worker_index").asLong(), h.workerIndex(), where);
                assertEquals(expected.get("thread_index").asLong(), h.threadIndex(), where);
                assertEquals(expected.get("request_id").asLong(), h.requestId(), where);
            }
            case FrameType.WELCOME -> {
                Welcome w = Welcome.decode(p);
                assertEquals(expected.get("version").asInt(), w.version(), where);
                assertEquals(expected.get("link_id").asLong(), w.linkId(), where);
            }
            case FrameType.GOAWAY -> {
                Goaway g = Goaway.decode(p);
                assertEquals(expected.get("code").asInt(), g.code(), where);
                assertArrayEquals(bytes(expected.get("reason")), g.reason().getBytes(StandardCharsets.UTF_8), where);
            }
            case FrameType.CONFIG -> assertArrayEquals(bytes(expected.get("json")), array(p), where);
            case FrameType.PHASED_RESTART -> assertEquals(0, p.readableBytes(), where + " empty payload");
            case FrameType.WORKER_COUNT -> assertEquals(expected.get("count").asLong(), WorkerCount.decode(p).count(), where);
            case FrameType.EXTRA_SLOTS -> assertEquals(expected.get("count").asLong(), ExtraSlots.decode(p).count(), where);
            case FrameType.REQUEST -> {
                Request request = Request.decode(p);
                assertEquals(expected.get("headers_parsed_ns").asLong(), request.headersParsedNanos(), where);
                assertEquals(expected.get("runnable_ns").asLong(), request.runnableNanos(), where);
                assertEquals(expected.get("dispatched_ns").asLong(), request.dispatchedNanos(), where);
                assertPairs(expected.get("pairs"), request.env(), where);
            }
            case FrameType.BODY, FrameType.RESPONSE_BODY -> assertArrayEquals(bytes(expected.get("data")), array(p), where);
            case FrameType.RESPONSE_HEAD, FrameType.HIJACK_HEAD -> {
                ResponseHead head = ResponseHead.decode(actual);
                assertEquals(expected.get("status").asInt(), head.status(), where);
                JsonNode gvl = expected.get("gvl_wait_ns");
                assertEquals(gvl == null ? ResponseHead.GVL_WAIT_UNKNOWN : gvl.asLong(), head.gvlWaitNanos(), where);
                assertEquals(expected.get("app_called_ns").asLong(), head.appCalledNanos(), where);
                assertEquals(expected.get("app_returned_ns").asLong(), head.appReturnedNanos(), where);
                assertEquals(expected.get("body_read_ns").asLong(), head.bodyReadNanos(), where);
                assertPairs(expected.get("pairs"), head.headers(), where);
            }
            case FrameType.RESPONSE_ABORT -> assertArrayEquals(bytes(expected.get("reason")), array(p), where);
            case FrameType.HIJACK -> assertEquals(0, p.readableBytes(), where);
            case FrameType.RESPONSE_FILE -> {
                ResponseFile file = ResponseFile.decode(p);
                assertEquals(expected.get("offset").asLong(), file.offset(), where);
                assertEquals(expected.get("length").asLong(), file.length(), where);
                assertArrayEquals(bytes(expected.get("path")), latin1(file.path()), where);
            }
            case FrameType.EARLY_HINTS -> assertPairs(expected.get("pairs"), PairList.decode(p, 0), where);
            case FrameType.WS_COMMAND -> {
                WebSocketCommand command = WebSocketCommand.decode(p);
                assertEquals(expected.get("op").asInt(), command.op(), where);
                assertEquals(expected.get("code").asInt(), command.code(), where);
                assertEquals(expected.get("connection").asLong(), command.connection(), where);
                assertArrayEquals(bytes(expected.get("channel")), latin1(command.channel()), where);
                assertArrayEquals(bytes(expected.get("data")), command.data(), where);
            }
            default -> throw new AssertionError("unexpected type " + actual.type());
        }
    }

    private static void assertPairs(JsonNode expected, List<Map.Entry<String, String>> actual, String where) {
        assertEquals(expected.size(), actual.size(), where + " pair count");
        for (int i = 0; i < actual.size(); i++) {
            assertArrayEquals(bytes(expected.get(i).get(0)), latin1(actual.get(i).getKey()), where + " name " + i);
            assertArrayEquals(bytes(expected.get(i).get(1)), latin1(actual.get(i).getValue()), where + " value " + i);
        }
    }

    private static Frame frameOf(JsonNode json) {
        ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
        int type = FrameType.forName(json.get("type").asText());
        int flags = flagsOf(json);
        boolean end = (flags & Frame.END_STREAM) != 0;
        return switch (type) {
            case FrameType.HELLO -> new Hello(json.get("version").asInt(), json.get("role").asInt(),
                    json.get("pid").asLong(), json.get("generation").asLong(), json.get("worker_index").asLong(),
                    json.get("thread_index").asLong(), json.get("request_id").asLong()).toFrame(alloc);
            case FrameType.WELCOME -> new Welcome(json.get("version").asInt(), json.get("link_id").asLong()).toFrame(alloc);
            case FrameType.GOAWAY -> new Goaway(json.get("code").asInt(),
                    new String(bytes(json.get("reason")), StandardCharsets.UTF_8)).toFrame(alloc);
            case FrameType.CONFIG -> new Frame(type, flags, Unpooled.wrappedBuffer(bytes(json.get("json"))));
            case FrameType.PHASED_RESTART -> Frame.empty(type, false);
            case FrameType.WORKER_COUNT -> new WorkerCount(json.get("count").asLong()).toFrame(alloc);
            case FrameType.EXTRA_SLOTS -> new ExtraSlots(json.get("count").asLong()).toFrame(alloc);
            // through Request.frame, the host's own path: the timing written into the payload's room
            case FrameType.REQUEST -> new Request(json.get("headers_parsed_ns").asLong(),
                    json.get("runnable_ns").asLong(), json.get("dispatched_ns").asLong(), pairs(json.get("pairs")))
                    .toFrame(alloc, end);
            case FrameType.BODY, FrameType.RESPONSE_BODY ->
                    new Frame(type, flags, Unpooled.wrappedBuffer(bytes(json.get("data"))));
            case FrameType.RESPONSE_HEAD -> new ResponseHead(json.get("status").asInt(),
                    json.get("app_called_ns").asLong(), json.get("app_returned_ns").asLong(),
                    json.get("body_read_ns").asLong(), pairs(json.get("pairs")), gvlWait(json)).toFrame(alloc, end);
            case FrameType.HIJACK_HEAD -> new ResponseHead(json.get("status").asInt(),
                    json.get("app_called_ns").asLong(), json.get("app_returned_ns").asLong(),
                    json.get("body_read_ns").asLong(), pairs(json.get("pairs")), gvlWait(json))
                    .toFrame(alloc, type, end);
            case FrameType.HIJACK -> Frame.empty(type, end);
            case FrameType.RESPONSE_FILE -> new ResponseFile(json.get("offset").asLong(), json.get("length").asLong(),
                    new String(bytes(json.get("path")), StandardCharsets.ISO_8859_1)).toFrame(alloc, end);
            case FrameType.EARLY_HINTS -> new Frame(type, flags, PairList.encode(alloc, pairs(json.get("pairs"))));
            case FrameType.RESPONSE_ABORT -> new Frame(type, flags, Unpooled.wrappedBuffer(bytes(json.get("reason"))));
            case FrameType.WS_COMMAND -> new WebSocketCommand(json.get("op").asInt(), json.get("code").asInt(),
                    json.get("connection").asLong(), new String(bytes(json.get("channel")), StandardCharsets.ISO_8859_1),
                    bytes(json.get("data"))).toFrame(alloc);
            default -> throw new AssertionError(type);
        };
    }

    private static List<Map.Entry<String, String>> pairs(JsonNode list) {
        List<Map.Entry<String, String>> pairs = new ArrayList<>();
        for (JsonNode pair : list) {
            pairs.add(Map.entry(new String(bytes(pair.get(0)), StandardCharsets.ISO_8859_1),
                    new String(bytes(pair.get(1)), StandardCharsets.ISO_8859_1)));
        }
        return pairs;
    }

    private static int flagsOf(JsonNode frame) {
        int flags = 0;
        for (JsonNode flag : frame.get("flags")) {
            flags |= switch (flag.asText()) {
                case "END_STREAM" -> Frame.END_STREAM;
                case "GVL_WAIT" -> ResponseHead.GVL_WAIT;
                default -> throw new AssertionError("unknown flag " + flag);
            };
        }
        return flags;
    }

    /** A head's {@code gvl_wait_ns}, or unknown when the case has none. */
    private static long gvlWait(JsonNode head) {
        JsonNode gvl = head.get("gvl_wait_ns");
        return gvl == null ? ResponseHead.GVL_WAIT_UNKNOWN : gvl.asLong();
    }

    /** A corpus bytes value: a string (its UTF-8), {"base64": ...} or {"repeat": bytes, "times": n}. */
    static byte[] bytes(JsonNode value) {
        if (value.isTextual()) {
            return value.asText().getBytes(StandardCharsets.UTF_8);
        }
        if (value.has("base64")) {
            return Base64.getDecoder().decode(value.get("base64").asText());
        }
        byte[] unit = bytes(value.get("repeat"));
        int times = value.get("times").asInt();
        byte[] out = new byte[unit.length * times];
        for (int i = 0; i < times; i++) {
            System.arraycopy(unit, 0, out, i * unit.length, unit.length);
        }
        return out;
    }

    private static byte[] latin1(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static byte[] array(ByteBuf buf) {
        byte[] out = new byte[buf.readableBytes()];
        buf.getBytes(buf.readerIndex(), out);
        return out;
    }
}
