/*
 * The WS_COMMAND payload (worker → host, protocol version 4): what a worker's app asks the host to do with
 * the WebSocket connections the host holds — send, broadcast, join, leave, close — and, for a WebTransport
 * session, send a datagram or on a stream, while a request runs.
 */
package dev.pumaplus.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * {@code u8 op, u8 reserved, u16 code, u64 connection, u16 channel length}, the channel, then the data
 * (docs/PROTOCOL.md, "WebSocket commands"). The record holds the data as bytes; the host copies a message
 * into each connection's frame anyway.
 *
 * @param op         one of {@link #SEND_TEXT} … {@link #SEND_STREAM}
 * @param code       the close code for {@link #CLOSE} (1000 or 3000–4999), {@link #FIN} or 0 for
 *                   {@link #SEND_STREAM}, else 0
 * @param connection the connection id (1 to 2^63−1), 0 for a broadcast
 * @param channel    the channel name's bytes as ISO-8859-1 chars (one per byte), empty for SEND and CLOSE
 * @param data       the message, or a CLOSE's reason (at most 123 bytes); empty for JOIN and LEAVE; for
 *                   SEND_STREAM a u64 stream id ({@link #streamId}) and then the bytes
 */
public record WebSocketCommand(int op, int code, long connection, String channel, byte[] data) {

    public static final int SEND_TEXT = 1;
    public static final int SEND_BINARY = 2;
    public static final int BROADCAST_TEXT = 3;
    public static final int BROADCAST_BINARY = 4;
    public static final int JOIN = 5;
    public static final int LEAVE = 6;
    public static final int CLOSE = 7;
    /** A WebTransport datagram to the target session. */
    public static final int SEND_DATAGRAM = 8;
    /** Bytes on a WebTransport session's stream: the data's first 8 bytes name it. */
    public static final int SEND_STREAM = 9;
    /** SEND_STREAM's code: the stream's sending side ends after these bytes. */
    public static final int FIN = 1;
    /**
     * Stream ids from here on are names the app gives streams of the server's it opens; below, QUIC ids (the
     * spi's {@code WebSocketPeer.FIRST_APP_STREAM}, which the hub passes them on to).
     */
    public static final long FIRST_APP_STREAM = 1L << 62;
    /** Bytes before the channel name. */
    public static final int FIXED_LENGTH = 14;
    /** RFC 6455 §5.5: a control frame's payload is at most 125 bytes, two of them the code. */
    public static final int MAX_REASON = 123;

    /**
     * Reads a WS_COMMAND payload without moving its reader index.
     *
     * @throws ProtocolException when it breaks the row of docs/PROTOCOL.md's malformed payloads
     */
    public static WebSocketCommand decode(ByteBuf payload) {
        PayloadLength.atLeast(payload, FIXED_LENGTH);
        int i = payload.readerIndex();
        int op = payload.getUnsignedByte(i);
        int code = payload.getUnsignedShort(i + 2);
        long connection = payload.getLong(i + 4);
        int channelLength = payload.getUnsignedShort(i + 12);
        if (op < SEND_TEXT || op > SEND_STREAM) {
            throw new ProtocolException("unknown op " + op);
        }
        if (channelLength > payload.readableBytes() - FIXED_LENGTH) {
            throw new ProtocolException("channel length " + channelLength + " beyond the payload");
        }
        String channel = payload.toString(i + FIXED_LENGTH, channelLength, StandardCharsets.ISO_8859_1);
        byte[] data = new byte[payload.readableBytes() - FIXED_LENGTH - channelLength];
        payload.getBytes(i + FIXED_LENGTH + channelLength, data);
        String problem = problem(op, code, connection, channel, data);
        if (problem != null) {
            throw new ProtocolException(problem);
        }
        return new WebSocketCommand(op, code, connection, channel, data);
    }

    /** What makes these fields malformed, or null when they are well-formed. */
    static String problem(int op, int code, long connection, String channel, byte[] data) {
        boolean broadcast = op == BROADCAST_TEXT || op == BROADCAST_BINARY;
        boolean namesChannel = broadcast || op == JOIN || op == LEAVE;
        if (broadcast ? connection != 0 : connection <= 0) {
            return broadcast ? "a broadcast names connection " + Long.toUnsignedString(connection)
                    : "connection " + Long.toUnsignedString(connection) + ", 1 to 2^63-1 required";
        }
        if (namesChannel == channel.isEmpty()) {
            return namesChannel ? "no channel" : "a channel for op " + op;
        }
        if (op == SEND_STREAM) {
            if (code != 0 && code != FIN) {
                return "code " + code + ", 0 or 1 (FIN) required for SEND_STREAM";
            }
            if (data.length < Long.BYTES) {
                return "a SEND_STREAM of " + data.length + " data bytes, at least 8 (the stream id)";
            }
            if (readLong(data) < 0) {
                return "stream " + Long.toUnsignedString(readLong(data)) + ", 0 to 2^63-1 required";
            }
        } else if (op == CLOSE ? code != 1000 && (code < 3000 || code > 4999) : code != 0) {
            return "code " + code + (op == CLOSE ? ", 1000 or 3000-4999 required" : " outside CLOSE");
        }
        if ((op == JOIN || op == LEAVE) && data.length > 0) {
            return "data for op " + op;
        }
        if (op == CLOSE && data.length > MAX_REASON) {
            return "a close reason of " + data.length + " bytes, at most " + MAX_REASON;
        }
        return null;
    }

    /** A SEND_STREAM's stream: a QUIC stream id below {@link #FIRST_APP_STREAM}, an app's name from it on. */
    public long streamId() {
        return readLong(data);
    }

    /** The bytes a SEND_STREAM carries, after its stream id. */
    public byte[] streamBytes() {
        return Arrays.copyOfRange(data, Long.BYTES, data.length);
    }

    private static long readLong(byte[] bytes) {
        long value = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            value = value << 8 | (bytes[i] & 0xFF);
        }
        return value;
    }

    /** This command as a frame. */
    public Frame toFrame(ByteBufAllocator alloc) {
        ByteBuf out = alloc.buffer(FIXED_LENGTH + channel.length() + data.length);
        out.writeByte(op).writeByte(0).writeShort(code).writeLong(connection).writeShort(channel.length())
                .writeCharSequence(channel, StandardCharsets.ISO_8859_1);
        out.writeBytes(data);
        return Frame.of(FrameType.WS_COMMAND, false, out);
    }
}
