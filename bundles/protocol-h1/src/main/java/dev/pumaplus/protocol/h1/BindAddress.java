/*
 * One configured listening address from the `binds` setting: `tcp://HOST:PORT` (cleartext HTTP/1.1, and
 * h2c when protocol-h2 is loaded) or `ssl://HOST:PORT?cert=PATH&key=PATH` (TLS with ALPN); the accept
 * step of accept → parse → queue → ... starts on the socket bound to it.
 */
package dev.pumaplus.protocol.h1;

import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A parsed bind URI. Immutable.
 *
 * @param host as written in the URI, IPv6 literals keeping their brackets ({@code [::1]})
 * @param port 0 asks the kernel for a free port
 * @param tls  true for {@code ssl://}
 * @param cert the PEM certificate chain of an {@code ssl://} bind, else null
 * @param key  the PEM private key of an {@code ssl://} bind, else null
 */
record BindAddress(String host, int port, boolean tls, Path cert, Path key) {

    /** A cleartext {@code tcp://} address. */
    BindAddress(String host, int port) {
        this(host, port, false, null, null);
    }

    /**
     * Parses {@code tcp://HOST:PORT} or {@code ssl://HOST:PORT?cert=PATH&key=PATH} (puma's form; values
     * URL-encoded; {@code verify_mode=none} is accepted, as the only mode there is); throws
     * IllegalArgumentException naming the bad value.
     */
    static BindAddress parse(String uri) {
        String expected = "expected tcp://HOST:PORT or ssl://HOST:PORT?cert=PATH&key=PATH";
        boolean tls;
        if (uri != null && uri.startsWith("tcp://")) {
            tls = false;
        } else if (uri != null && uri.startsWith("ssl://")) {
            tls = true;
        } else {
            throw new IllegalArgumentException("bind " + uri + ": " + expected);
        }
        String rest = uri.substring("tcp://".length());
        String query = null;
        int q = rest.indexOf('?');
        if (q >= 0) {
            if (!tls) {
                throw new IllegalArgumentException("bind " + uri + ": " + expected);
            }
            query = rest.substring(q + 1);
            rest = rest.substring(0, q);
        }
        while (rest.endsWith("/")) {
            rest = rest.substring(0, rest.length() - 1);
        }
        int colon = rest.lastIndexOf(':');
        if (colon <= 0 || (rest.startsWith("[") && colon < rest.indexOf(']'))) {
            throw new IllegalArgumentException("bind " + uri + ": " + expected);
        }
        String host = rest.substring(0, colon);
        int port;
        try {
            port = Integer.parseInt(rest.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bind " + uri + ": bad port", e);
        }
        if (port < 0 || port > 65535 || host.isEmpty() || (host.startsWith("[") != host.endsWith("]"))) {
            throw new IllegalArgumentException("bind " + uri + ": " + expected);
        }
        if (!tls) {
            return new BindAddress(host, port);
        }
        Path cert = null;
        Path key = null;
        for (String pair : query == null ? new String[0] : query.split("&")) {
            int eq = pair.indexOf('=');
            String name = eq < 0 ? pair : pair.substring(0, eq);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            switch (name) {
                case "cert" -> cert = Path.of(value);
                case "key" -> key = Path.of(value);
                case "verify_mode" -> {
                    if (!value.equals("none")) {
                        throw new IllegalArgumentException("bind " + uri + ": only verify_mode=none is supported");
                    }
                }
                default -> throw new IllegalArgumentException("bind " + uri + ": unknown parameter " + name);
            }
        }
        if (cert == null || key == null) {
            throw new IllegalArgumentException("bind " + uri + ": an ssl:// bind needs cert=PATH and key=PATH");
        }
        return new BindAddress(host, port, true, cert, key);
    }

    /** The socket address to bind (resolves the host name). */
    InetSocketAddress socketAddress() {
        String bare = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
        return new InetSocketAddress(bare, port);
    }

    /** The URL announced through {@code HostSettings.listening}, with the port actually bound. */
    String url(int actualPort) {
        return (tls ? "https://" : "http://") + host + ":" + actualPort;
    }

    @Override
    public String toString() {
        return (tls ? "ssl://" : "tcp://") + host + ":" + port;
    }
}
