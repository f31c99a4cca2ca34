/*
 * How the bundle that owns the TCP listeners (protocol-h1) hands a connection over to HTTP/2 (accept →
 * parse): after ALPN chose "h2", when a cleartext client opened with the HTTP/2 preface, or when an
 * HTTP/1.1 request asked to upgrade to h2c. Implemented and registered by the protocol-h2 bundle.
 */
package dev.pumaplus.spi;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.FullHttpRequest;

/**
 * Takes over a client connection for HTTP/2. Every stream becomes its own {@link RequestQueue} entry with
 * the connection (the channel passed here) as its fairness key, so a connection with many streams gets
 * no more than one request at a time into the FIFO ahead of other connections.
 *
 * <p>Threading: both methods must be called on {@code channel}'s event loop, after the caller has removed
 * its own protocol handlers from the pipeline (a TLS handler stays in front). They return at once.
 */
public interface Http2Handoff {

    /**
     * Serves HTTP/2 on {@code channel}, whose next inbound bytes are the client connection preface.
     *
     * @param scheme {@code https} after ALPN on a TLS connection, {@code http} for cleartext prior knowledge
     * @param altSvc the {@code Alt-Svc} value to add to every response (advertising HTTP/3), or null
     */
    void serve(Channel channel, String scheme, String altSvc);

    /**
     * The h2c upgrade (RFC 7540 section 3.2): answers {@code 101 Switching Protocols} to {@code request}
     * (an HTTP/1.1 request without a body that carries {@code Upgrade: h2c} and {@code HTTP2-Settings}),
     * then serves HTTP/2 on {@code channel}, with {@code request} itself as stream 1. Ownership of
     * {@code request} transfers. Cleartext only.
     */
    void upgrade(Channel channel, FullHttpRequest request);
}
