package dev.pumaplus.spi;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;

/**
 * A parsed request as a protocol bundle hands it to the host, before the host turns it into the Rack env
 * pair list (see docs/PROTOCOL.md). Protocol-neutral: HTTP/1.1, h2 and h3 all produce this, so all produce
 * the same env.
 *
 * @param method   the request method, e.g. {@code GET}
 * @param target   the raw request-target (origin form: path plus optional {@code ?query}), undecoded
 * @param protocol the value for SERVER_PROTOCOL, e.g. {@code HTTP/1.1}
 * @param scheme   {@code http} or {@code https}
 * @param local    the address the client connected to
 * @param remote   the client's address
 * @param headers  request headers in arrival order; names as received, values carrying raw bytes as
 *                 ISO-8859-1 chars (one char per byte)
 * @param firstByteNanos    T1, {@link System#nanoTime()} when the request's first byte arrived
 * @param headersParsedNanos T2, {@link System#nanoTime()} when the header section was parsed
 */
public record RequestHead(
        String method,
        String target,
        String protocol,
        String scheme,
        InetSocketAddress local,
        InetSocketAddress remote,
        List<Map.Entry<String, String>> headers,
        long firstByteNanos,
        long headersParsedNanos) {
}
