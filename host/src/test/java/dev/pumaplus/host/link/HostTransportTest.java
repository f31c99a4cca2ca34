/*
 * Claims about which Netty transport the host's event loops run (the loops every connection and worker link
 * is read and written on): io_uring first, epoll when systemd passed sockets, an explicit choice obeyed or
 * refused with its reason.
 */
package dev.pumaplus.host.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class HostTransportTest {

    private static final Map<String, String> NO_SOCKETS = Map.of();

    @Test
    void ioUringIsChosenWhereItRunsElseEpollElseNio() {
        HostTransport.Kind expected = HostTransport.Kind.IO_URING.unavailability() == null ? HostTransport.Kind.IO_URING
                : HostTransport.Kind.EPOLL.unavailability() == null ? HostTransport.Kind.EPOLL : HostTransport.Kind.NIO;
        assertEquals(expected, HostTransport.choose(null, NO_SOCKETS, 42));
    }

    @Test
    void systemdSocketsForThisProcessMakeItEpollBecauseOnlyEpollChannelsAdoptADescriptor() {
        assumeTrue(HostTransport.Kind.IO_URING.unavailability() == null, "io_uring does not run here");
        Map<String, String> activated = Map.of("LISTEN_FDS", "1", "LISTEN_PID", "42");
        assertEquals(HostTransport.Kind.EPOLL, HostTransport.choose(null, activated, 42));
        // Sockets meant for another process (LISTEN_PID names it) are not adopted: io_uring stays.
        assertEquals(HostTransport.Kind.IO_URING, HostTransport.choose(null, activated, 43));
    }

    @Test
    void theTransportPropertyIsObeyed() {
        assertEquals(HostTransport.Kind.NIO, HostTransport.choose("nio", NO_SOCKETS, 42));
        assumeTrue(HostTransport.Kind.EPOLL.unavailability() == null, "epoll does not run here");
        assertEquals(HostTransport.Kind.EPOLL, HostTransport.choose("epoll", NO_SOCKETS, 42));
    }

    @Test
    void anUnknownTransportIsRefusedNamingTheChoices() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HostTransport.choose("kqueue", NO_SOCKETS, 42));
        assertEquals("puma-plus.transport is kqueue; it must be io_uring, epoll or nio", e.getMessage());
    }

    @Test
    void eachTransportThatRunsHereServesItsLoopsAndNamesItself() {
        for (HostTransport.Kind kind : HostTransport.Kind.values()) {
            if (kind.unavailability() != null) {
                continue;
            }
            HostTransport transport = HostTransport.create(kind, 1);
            try {
                assertEquals(kind.label, transport.transport());
                assertTrue(transport.group().submit(() -> true).syncUninterruptibly().getNow(), kind.label);
            } finally {
                transport.shutdown();
            }
        }
    }
}
