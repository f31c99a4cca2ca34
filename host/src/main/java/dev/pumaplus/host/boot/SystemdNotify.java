/*
 * systemd's sd_notify protocol for the host process, which is the unit's main PID (the puma-plus executable
 * execs java): READY=1 with the ready line, RELOADING=1 around a hot restart, STOPPING=1 at stop, STATUS=
 * with each, and WATCHDOG=1 keep-alives. Off the request path; the launcher calls it at lifecycle moments.
 */
package dev.pumaplus.host.boot;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.unix.Socket;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Speaks only when {@code NOTIFY_SOCKET} is set (a path, or an abstract name starting with '@'); each
 * message is one datagram sent with Netty's native unix socket (the JDK has no unix datagram sockets), so
 * without the epoll native library it logs once that it cannot and stays silent. The watchdog runs when
 * {@code WATCHDOG_USEC} is set and {@code WATCHDOG_PID} is this process or absent, every half interval as
 * sd_watchdog_enabled(3) advises.
 *
 * <p>Threading: any thread may send (the launcher's, the lifecycle thread, an event loop via the ready
 * line); sends are serialised on this object. {@link #close} stops the watchdog and closes the socket.
 */
final class SystemdNotify implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(SystemdNotify.class.getName());

    /** The socket address's bytes (a leading NUL for an abstract name), or null when not under systemd. */
    private final byte[] target;
    private final long watchdogMicros;
    private Socket socket;
    private ScheduledExecutorService watchdog;

    private SystemdNotify(byte[] target, long watchdogMicros) {
        this.target = target;
        this.watchdogMicros = watchdogMicros;
    }

    /**
     * Reads {@code NOTIFY_SOCKET}, {@code WATCHDOG_USEC} and {@code WATCHDOG_PID} from {@code env} for the
     * process {@code pid} and starts the watchdog if asked; silent (every call does nothing) without
     * NOTIFY_SOCKET.
     */
    static SystemdNotify open(Map<String, String> env, long pid) {
        String path = env.get("NOTIFY_SOCKET");
        if (path == null || path.isEmpty()) {
            return new SystemdNotify(null, 0);
        }
        if (!Epoll.isAvailable()) {
            LOG.log(Level.WARNING, "NOTIFY_SOCKET is set, but sd_notify needs Netty's native epoll library, which "
                    + "does not load here: " + Epoll.unavailabilityCause());
            return new SystemdNotify(null, 0);
        }
        SystemdNotify notify = new SystemdNotify(address(path), watchdogMicros(env, pid));
        notify.startWatchdog();
        return notify;
    }

    /** NOTIFY_SOCKET's bytes as sockaddr_un's sun_path: '@' at the start is the abstract namespace's NUL. */
    static byte[] address(String notifySocket) {
        String name = notifySocket.startsWith("@") ? "\0" + notifySocket.substring(1) : notifySocket;
        return name.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Microseconds between WATCHDOG=1 keep-alives: half of WATCHDOG_USEC when that is a positive number and
     * WATCHDOG_PID names {@code pid} or is absent; else 0 (no watchdog). Pure.
     */
    static long watchdogMicros(Map<String, String> env, long pid) {
        String usec = env.get("WATCHDOG_USEC");
        String watchedPid = env.get("WATCHDOG_PID");
        try {
            if (usec == null || (watchedPid != null && Long.parseLong(watchedPid.trim()) != pid)) {
                return 0;
            }
            long micros = Long.parseLong(usec.trim());
            return micros > 0 ? Math.max(1, micros / 2) : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** READY=1: the host serves (the ready line's moment, and again after a hot restart). */
    void ready(String status) {
        send("READY=1\nSTATUS=" + status);
    }

    /** RELOADING=1 with the CLOCK_MONOTONIC time it started (systemd's Type=notify-reload needs it). */
    void reloading(String status) {
        send(reloadingMessage(System.nanoTime() / 1_000, status));
    }

    /** The RELOADING=1 datagram at {@code monotonicMicros}. Pure. */
    static String reloadingMessage(long monotonicMicros, String status) {
        return "RELOADING=1\nMONOTONIC_USEC=" + monotonicMicros + "\nSTATUS=" + status;
    }

    /** STOPPING=1: the stop sequence has begun. */
    void stopping(String status) {
        send("STOPPING=1\nSTATUS=" + status);
    }

    @Override
    public synchronized void close() {
        if (watchdog != null) {
            watchdog.shutdownNow();
            watchdog = null;
        }
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing a datagram socket that sent its last message: nothing to recover
            }
            socket = null;
        }
    }

    private void startWatchdog() {
        if (watchdogMicros <= 0) {
            return;
        }
        watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "puma-plus-watchdog");
            t.setDaemon(true);
            return t;
        });
        watchdog.scheduleAtFixedRate(() -> send("WATCHDOG=1"), 0, watchdogMicros, TimeUnit.MICROSECONDS);
    }

    private synchronized void send(String message) {
        if (target == null) {
            return;
        }
        byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
        ByteBuffer buffer = ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
        try {
            if (socket == null) {
                socket = Socket.newSocketDomainDgram();
            }
            socket.sendToDomainSocket(buffer, 0, bytes.length, target);
        } catch (IOException | RuntimeException e) {
            // systemd may be gone (or the socket never was one): the server keeps serving either way
            LOG.log(Level.WARNING, "sd_notify " + message.lines().findFirst().orElse("") + " to NOTIFY_SOCKET failed: " + e);
        }
    }
}
