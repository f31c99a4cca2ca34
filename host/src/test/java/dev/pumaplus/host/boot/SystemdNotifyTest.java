/*
 * Claims about the host's sd_notify messages (off the request path): what each lifecycle moment sends to
 * NOTIFY_SOCKET, a path or an abstract name, when the watchdog runs, and that without NOTIFY_SOCKET nothing does.
 */
package dev.pumaplus.host.boot;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.unix.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(10)
class SystemdNotifyTest {

    @TempDir
    Path tmp;

    @Test
    void watchdogIsHalfOfWatchdogUsecForThisPidOrAnyAndOffOtherwise() {
        assertEquals(1_500_000, SystemdNotify.watchdogMicros(Map.of("WATCHDOG_USEC", "3000000"), 42));
        assertEquals(1_500_000, SystemdNotify.watchdogMicros(Map.of("WATCHDOG_USEC", "3000000", "WATCHDOG_PID", "42"), 42));
        assertEquals(0, SystemdNotify.watchdogMicros(Map.of("WATCHDOG_USEC", "3000000", "WATCHDOG_PID", "41"), 42));
        assertEquals(0, SystemdNotify.watchdogMicros(Map.of(), 42));
        assertEquals(0, SystemdNotify.watchdogMicros(Map.of("WATCHDOG_USEC", "soon"), 42));
    }

    @Test
    void anAbstractNameIsSentToWithTheLeadingNul() {
        assertArrayEquals("\0puma-plus/notify".getBytes(StandardCharsets.UTF_8), SystemdNotify.address("@puma-plus/notify"));
        assertArrayEquals("/run/x".getBytes(StandardCharsets.UTF_8), SystemdNotify.address("/run/x"));
    }

    @Test
    void reloadingCarriesTheMonotonicTimeItStarted() {
        assertEquals("RELOADING=1\nMONOTONIC_USEC=123\nSTATUS=hot restart", SystemdNotify.reloadingMessage(123, "hot restart"));
    }

    @Test
    void eachMomentIsOneDatagramOnNotifySocketAndTheWatchdogPings() throws Exception {
        assumeTrue(Epoll.isAvailable(), "sd_notify needs the epoll native library");
        String path = tmp.resolve("notify.sock").toString();
        Socket listener = Socket.newSocketDomainDgram();
        try {
            listener.bind(new DomainSocketAddress(path));
            try (SystemdNotify notify = SystemdNotify.open(Map.of("NOTIFY_SOCKET", path, "WATCHDOG_USEC", "100000"), 7)) {
                assertEquals("WATCHDOG=1", receive(listener)); // at once, then every 50 ms
                notify.ready("ready, 2 slots");
                notify.stopping("stopping");
                String next = receive(listener);
                while (next.equals("WATCHDOG=1")) {
                    next = receive(listener);
                }
                assertEquals("READY=1\nSTATUS=ready, 2 slots", next);
                next = receive(listener);
                while (next.equals("WATCHDOG=1")) {
                    next = receive(listener);
                }
                assertEquals("STOPPING=1\nSTATUS=stopping", next);
            }
        } finally {
            listener.close();
        }
    }

    @Test
    void withoutNotifySocketNothingIsSent() {
        try (SystemdNotify notify = SystemdNotify.open(Map.of("WATCHDOG_USEC", "1000"), 7)) {
            notify.ready("ready");
            notify.reloading("reload");
            notify.stopping("stop");
        }
    }

    /** The next datagram (Netty's sockets are non-blocking: polled until one is there). */
    private static String receive(Socket listener) throws Exception {
        ByteBuffer buffer = ByteBuffer.allocateDirect(4096);
        io.netty.channel.unix.DomainDatagramSocketAddress from;
        while ((from = listener.recvFromDomainSocket(buffer, 0, buffer.capacity())) == null) {
            Thread.sleep(1);
        }
        int n = from.receivedAmount();
        byte[] bytes = new byte[n];
        buffer.get(0, bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
