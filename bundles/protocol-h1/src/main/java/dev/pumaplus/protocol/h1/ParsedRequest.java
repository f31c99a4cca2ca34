/*
 * A request head just out of the parser, stamped with the T1/T2 request-timing clocks; passed from the
 * decoder to the connection handler (parse → queue).
 */
package dev.pumaplus.protocol.h1;

import io.netty.handler.codec.http.HttpRequest;

/**
 * Carries Netty's {@link HttpRequest} (possibly a failed one: see its decoder result) with its authority
 * and timing. Created and consumed on the connection's event loop.
 *
 * @param request            the parsed head; reference counted when it is a {@code FullHttpRequest}
 * @param authority          the authority the request names (RFC 9112 §3.2.2): an absolute-form target's,
 *                           else the Host value; null for an HTTP/1.0 request with neither, or a failed one
 * @param firstByteNanos     T1: {@link RequestClock} time of the read that delivered the request's first byte
 * @param headersParsedNanos T2: {@link RequestClock} time when the header section was parsed
 */
record ParsedRequest(HttpRequest request, String authority, long firstByteNanos, long headersParsedNanos) {
}
