/*
 * systemd socket activation for the HTTP/1.1 listener (the accept step of accept → parse → queue → ...):
 * the listening sockets systemd passed in LISTEN_FDS, each known by the bind URI it answers, adopted in
 * place of binding; with puma's bind_to_activated_sockets they also become binds of their own.
 */
package dev.pumaplus.protocol.h1;

import io.netty.channel.unix.Socket;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Matching is puma's (lib/puma/binder.rb): a {@code tcp://} or {@code ssl://} bind takes the socket on its
 * host and port as written ({@code 127.0.0.1}, {@code [::1]}), a {@code unix://} bind the socket on its
 * path. Sockets no bind took are closed when the listener has started (a unix one's file removed), as
 * puma does. The sockets are only read here: Netty's epoll channels wrap the descriptors (the JDK cannot
 * adopt one), so without epoll socket activation is refused.
 *
 * <p>Used by the listener's {@code start()} only (the OSGi framework's thread).
 */
final class ActivatedSockets {

    /** The first descriptor systemd passes (SD_LISTEN_FDS_START). */
    static final int FIRST_FD = 3;
    /** Linux's getsockopt(SOL_SOCKET, SO_DOMAIN) and AF_UNIX: a socket's family (its address cannot say). */
    private static final int SOL_SOCKET = 1;
    private static final int SO_DOMAIN = 39;
    private static final int AF_UNIX = 1;

    /** One inherited listening socket: its descriptor, and its address (internet, or a unix socket file). */
    private record Activated(int fd, InetSocketAddress inet, Path file) {

        /** The bind URI this socket answers: {@code tcp://HOST:PORT} (IPv6 in brackets) or {@code unix://PATH}. */
        String uri() {
            if (file != null) {
                return "unix://" + file;
            }
            String host = inet.getAddress().getHostAddress();
            return "tcp://" + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + inet.getPort();
        }
    }

    /** In descriptor order; a bind that takes one removes it. */
    private final List<Activated> sockets = new ArrayList<>();

    private ActivatedSockets() {
    }

    /**
     * The sockets of {@code LISTEN_FDS} when {@code LISTEN_PID} is {@code pid} (else none: they were meant
     * for another process).
     *
     * @throws IllegalStateException when there are some but the epoll transport is not available
     */
    static ActivatedSockets fromEnvironment(Map<String, String> env, long pid) throws IOException {
        String count = env.get("LISTEN_FDS");
        String listenPid = env.get("LISTEN_PID");
        List<Integer> fds = new ArrayList<>();
        try {
            if (count != null && listenPid != null && Long.parseLong(listenPid.trim()) == pid) {
                for (int i = 0; i < Integer.parseInt(count.trim()); i++) {
                    fds.add(FIRST_FD + i);
                }
            }
        } catch (NumberFormatException e) {
            throw new IllegalStateException("protocol-h1: LISTEN_FDS/LISTEN_PID are not numbers: " + count + "/" + listenPid, e);
        }
        return of(fds);
    }

    /** The listening sockets on {@code fds}, each keyed by the address it is bound to. */
    static ActivatedSockets of(List<Integer> fds) throws IOException {
        ActivatedSockets sockets = new ActivatedSockets();
        if (fds.isEmpty()) {
            return sockets;
        }
        if (!epollAvailable()) {
            throw new IllegalStateException("protocol-h1: socket activation (LISTEN_FDS) needs the epoll transport, "
                    + "which does not load here");
        }
        for (int fd : fds) {
            Socket socket = new Socket(fd);
            sockets.sockets.add(socket.getIntOpt(SOL_SOCKET, SO_DOMAIN) == AF_UNIX
                    ? new Activated(fd, null, Path.of(socket.localDomainSocketAddress().path()))
                    : new Activated(fd, socket.localAddress(), null));
        }
        return sockets;
    }

    /** The activated sockets' bind URIs, in descriptor order. */
    List<String> keys() {
        return sockets.stream().map(Activated::uri).toList();
    }

    /**
     * puma's bind_to_activated_sockets: {@code "false"} leaves {@code binds} as they are; {@code "true"}
     * adds a bind for each activated socket no bind matches (matched as {@link #take} matches: an
     * {@code ssl://} bind on the same address and port matches, and stays TLS); {@code "only"} keeps just the activated sockets' binds. Pure.
     */
    List<String> binds(List<String> binds, String mode) {
        if (sockets.isEmpty() || mode.equals("false")) {
            return binds;
        }
        List<String> activated = new ArrayList<>();
        for (Activated socket : sockets) {
            activated.add(binds.stream().filter(b -> answers(socket, parsed(b))).findFirst().orElse(socket.uri()));
        }
        if (mode.equals("only")) {
            return activated;
        }
        Set<String> union = new LinkedHashSet<>(binds);
        union.addAll(activated);
        return List.copyOf(union);
    }

    /**
     * The descriptor of the activated socket {@code address} answers, taken out of this set; or -1. A
     * {@code tcp://}/{@code ssl://} bind matches on its IP address (as written: a host name matches
     * nothing, as in puma) and port, a {@code unix://} bind on its socket file.
     */
    int take(BindAddress address) {
        for (Activated socket : sockets) {
            if (answers(socket, address)) {
                sockets.remove(socket);
                return socket.fd();
            }
        }
        return -1;
    }

    /** Whether {@code socket} is the one {@code address} (null: a bind that does not parse) would bind. */
    private static boolean answers(Activated socket, BindAddress address) {
        if (address == null) {
            return false;
        }
        return address.isUnix()
                ? socket.file() != null && socket.file().toAbsolutePath().normalize()
                        .equals(address.socketFile().toAbsolutePath().normalize())
                : socket.inet() != null && isLiteral(address) && socket.inet().equals(address.socketAddress());
    }

    private static BindAddress parsed(String bind) {
        try {
            return BindAddress.parse(bind);
        } catch (IllegalArgumentException e) {
            return null; // reported when the listener binds it
        }
    }

    private static boolean isLiteral(BindAddress address) {
        String host = address.host();
        return host.startsWith("[") || host.chars().allMatch(c -> c == '.' || Character.isDigit(c));
    }

    /** Closes every socket no bind took (removing a unix one's file); returns their bind URIs. */
    List<String> closeUnused() throws IOException {
        List<String> closed = keys();
        for (Activated unused : sockets) {
            new Socket(unused.fd()).close();
            if (unused.file() != null) {
                Files.deleteIfExists(unused.file());
            }
        }
        sockets.clear();
        return closed;
    }

    private static boolean epollAvailable() {
        try {
            return io.netty.channel.epoll.Epoll.isAvailable();
        } catch (LinkageError e) {
            return false; // the optional epoll package is not wired to this bundle
        }
    }
}
