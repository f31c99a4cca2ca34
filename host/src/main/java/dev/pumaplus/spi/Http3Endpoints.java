/*
 * How the bundle that owns the TCP listeners (protocol-h1) asks for HTTP/3 beside each TLS listener
 * (accept step): the protocol-h3 bundle implements it and serves QUIC on the same address and port over
 * UDP, with the same certificate. Registered only when a deployment loads protocol-h3.
 */
package dev.pumaplus.spi;

import java.net.InetSocketAddress;

/** Opens HTTP/3 listeners. Thread-safe. */
public interface Http3Endpoints {

    /**
     * Starts serving HTTP/3 on UDP {@code address} (the TLS listener's host and actual port) with
     * {@code tls}'s certificate and key. Each request stream becomes its own {@link RequestQueue} entry,
     * the QUIC connection being its fairness key.
     *
     * @return the {@code Alt-Svc} header value advertising it, e.g. {@code h3=":8443"; ma=86400}
     * @throws IllegalStateException naming the address when the UDP socket cannot be bound
     */
    String open(InetSocketAddress address, TlsMaterial tls);
}
