/*
 * One configured listening address (`tcp://HOST:PORT` from the `binds` setting): the accept step of
 * accept → parse → queue → ... starts on the socket bound to it.
 */
package dev.pumaplus.protocol.h1;

import java.net.InetSocketAddress;

/**
 * A parsed bind URI. Immutable.
 *
 * @param host as written in the URI, IPv6 literals keeping their brackets ({@code [::1]})
 * @param port 0 asks the kernel for a free port
 */
record BindAddress(String host, int port) {

    /** Parses {@code tcp://HOST:PORT}; throws IllegalArgumentException naming the bad value. */
    static BindAddress parse(String uri) {
        String prefix = "tcp://";
        if (uri == null || !uri.startsWith(prefix)) {
            throw new IllegalArgumentException("bind " + uri + ": expected tcp://HOST:PORT");
        }
        String rest = uri.substring(prefix.length());
        while (rest.endsWith("/")) {
            rest = rest.substring(0, rest.length() - 1);
        }
        int colon = rest.lastIndexOf(':');
        if (colon <= 0 || (rest.startsWith("[") && colon < rest.indexOf(']'))) {
            throw new IllegalArgumentException("bind " + uri + ": expected tcp://HOST:PORT");
        }
        String host = rest.substring(0, colon);
        int port;
        try {
            port = Integer.parseInt(rest.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bind " + uri + ": bad port", e);
        }
        if (port < 0 || port > 65535 || host.isEmpty() || (host.startsWith("[") != host.endsWith("]"))) {
            throw new IllegalArgumentException("bind " + uri + ": expected tcp://HOST:PORT");
        }
        return new BindAddress(host, port);
    }

    /** The socket address to bind (resolves the host name). */
    InetSocketAddress socketAddress() {
        String bare = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
        return new InetSocketAddress(bare, port);
    }

    /** The URL announced through {@code HostSettings.listening}, with the port actually bound. */
    String url(int actualPort) {
        return "http://" + host + ":" + actualPort;
    }

    @Override
    public String toString() {
        return "tcp://" + host + ":" + port;
    }
}
