/*
 * The length rules of docs/PROTOCOL.md ("Malformed payloads") that every typed payload decoder applies
 * before it reads a field, with one wording each; the Ruby codec's Wire::Payload.at_least and exactly.
 */
package dev.pumaplus.wire;

import io.netty.buffer.ByteBuf;

/** Checks a payload's length against its type's layout. Stateless. */
final class PayloadLength {

    private PayloadLength() {
    }

    /** @throws ProtocolException unless {@code payload} holds at least {@code minimum} bytes */
    static void atLeast(ByteBuf payload, int minimum) {
        if (payload.readableBytes() < minimum) {
            throw new ProtocolException("payload of " + payload.readableBytes() + " bytes, at least " + minimum
                    + " required");
        }
    }

    /** @throws ProtocolException unless {@code payload} holds exactly {@code length} bytes */
    static void exactly(ByteBuf payload, int length) {
        if (payload.readableBytes() != length) {
            throw new ProtocolException("payload of " + payload.readableBytes() + " bytes, " + length + " required");
        }
    }
}
