/*
 * One configured listening address from the `binds` setting: `tcp://HOST:PORT` (cleartext HTTP/1.1, and
 * h2c when protocol-h2 is loaded), `ssl://HOST:PORT?cert=PATH&key=PATH` (TLS with ALPN) or
 * `unix:///PATH?umask=0111&mode=0660` (cleartext HTTP/1.1 on a unix domain socket, as behind nginx); the
 * accept step of accept → parse → queue → ... starts on the socket bound to it.
 */
package dev.pumaplus.protocol.h1;

import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;

/**
 * A parsed bind URI. Immutable.
 *
 * @param host as written in the URI, IPv6 literals keeping their brackets ({@code [::1]})
 * @param port 0 asks the kernel for a free port
 * @param tls  true for {@code ssl://}
 * @param cert the PEM certificate chain of an {@code ssl://} bind, else null
 * @param key  the PEM private key of an {@code ssl://} bind, else null
 * @param socketFile the socket file of a {@code unix://} bind (host is then "" and port 0), else null
 * @param umask      the bits a {@code unix://} socket file's permissions leave out (puma's {@code umask=},
 *                   default 0: anyone may connect)
 * @param mode       the permissions a {@code unix://} socket file is given instead (puma's {@code mode=},
 *                   octal), or -1
 * @param backlog    the listen backlog (puma's {@code backlog=} on a {@code unix://} bind; 1024 otherwise)
 */
record BindAddress(String host, int port, boolean tls, Path cert, Path key, Path socketFile, int umask, int mode,
        int backlog) {

    /** puma's listen backlog. */
    static final int DEFAULT_BACKLOG = 1024;

    /** A cleartext {@code tcp://} address. */
    BindAddress(String host, int port) {
        this(host, port, false, null, null, null, 0, -1, DEFAULT_BACKLOG);
    }

    /** A {@code unix://} socket file. */
    static BindAddress unix(Path socketFile, int umask, int mode, int backlog) {
        return new BindAddress("", 0, false, null, null, socketFile, umask, mode, backlog);
    }

    /**
     * Parses {@code tcp://HOST:PORT} or {@code ssl://HOST:PORT?cert=PATH&key=PATH} (puma's form; values
     * URL-encoded; {@code verify_mode=none} is accepted, as the only mode there is); throws
     * IllegalArgumentException naming the bad value.
     */
    static BindAddress parse(String uri) {
        String expected = "expected tcp://HOST:PORT, ssl://HOST:PORT?cert=PATH&key=PATH or unix:///PATH";
        boolean tls;
        if (uri != null && uri.startsWith("unix://")) {
            return parseUnix(uri);
        } else if (uri != null && uri.startsWith("tcp://")) {
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
        return new BindAddress(host, port, true, cert, key, null, 0, -1, DEFAULT_BACKLOG);
    }

    /**
     * {@code unix://PATH[?umask=0111][&mode=0660][&backlog=N]}: puma's form ({@code umask} an integer whose
     * leading 0 means octal, {@code mode} always octal; {@code %20} is a space). An abstract name
     * ({@code unix://@name}) is refused: it has no file to hand out permissions on.
     */
    private static BindAddress parseUnix(String uri) {
        String rest = uri.substring("unix://".length());
        int q = rest.indexOf('?');
        String path = (q < 0 ? rest : rest.substring(0, q)).replace("%20", " ");
        if (path.isEmpty() || path.startsWith("@")) {
            throw new IllegalArgumentException("bind " + uri + ": expected unix://PATH (a socket file; abstract names are not supported)");
        }
        int umask = 0;
        int mode = -1;
        int backlog = DEFAULT_BACKLOG;
        for (String pair : q < 0 ? new String[0] : rest.substring(q + 1).split("&")) {
            int eq = pair.indexOf('=');
            String name = eq < 0 ? pair : pair.substring(0, eq);
            String value = eq < 0 ? "" : pair.substring(eq + 1);
            try {
                switch (name) {
                    case "umask" -> umask = Integer.decode(value); // Ruby's Integer(): a leading 0 is octal
                    case "mode" -> mode = Integer.parseInt(value, 8);
                    case "backlog" -> backlog = Integer.parseInt(value);
                    default -> throw new IllegalArgumentException("bind " + uri + ": unknown parameter " + name);
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bind " + uri + ": bad " + name + " " + value, e);
            }
        }
        if (umask < 0 || umask > 0777 || mode > 07777 || backlog <= 0) {
            throw new IllegalArgumentException("bind " + uri + ": umask, mode or backlog out of range");
        }
        return unix(Path.of(path), umask, mode, backlog);
    }

    /** True for a {@code unix://} bind. */
    boolean isUnix() {
        return socketFile != null;
    }

    /** The permissions a {@code unix://} socket file gets once bound: {@code mode}, else 0777 less {@code umask}. */
    Set<PosixFilePermission> socketPermissions() {
        int bits = mode >= 0 ? mode : 0777 & ~umask;
        PosixFilePermission[] all = PosixFilePermission.values(); // OWNER_READ .. OTHERS_EXECUTE: bit 8 down to 0
        Set<PosixFilePermission> permissions = EnumSet.noneOf(PosixFilePermission.class);
        for (int i = 0; i < all.length; i++) {
            if ((bits & (1 << (all.length - 1 - i))) != 0) {
                permissions.add(all[i]);
            }
        }
        return permissions;
    }

    /** The socket address to bind (resolves the host name). */
    InetSocketAddress socketAddress() {
        String bare = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
        return new InetSocketAddress(bare, port);
    }

    /** The URL announced through {@code HostSettings.listening}, with the port actually bound. */
    String url(int actualPort) {
        return isUnix() ? toString() : (tls ? "https://" : "http://") + host + ":" + actualPort;
    }

    @Override
    public String toString() {
        return isUnix() ? "unix://" + socketFile : (tls ? "ssl://" : "tcp://") + host + ":" + port;
    }
}
