/*
 * Claims about systemd socket activation at the accept step: which binds the listener has under puma's
 * bind_to_activated_sockets, and which bind adopts which inherited socket (puma's matching).
 */
package dev.pumaplus.protocol.h1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.unix.Socket;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class ActivatedSocketsTest {

    @TempDir
    Path tmp;

    private Socket tcp;
    private Socket unix;
    private int port;
    private Path file;

    /** Two listening sockets as systemd would pass them: one on 127.0.0.1, one on a socket file. */
    @BeforeEach
    void listen() throws Exception {
        assumeTrue(Epoll.isAvailable(), "socket activation needs the epoll transport");
        tcp = Socket.newSocketStream();
        tcp.bind(new InetSocketAddress("127.0.0.1", 0));
        tcp.listen(16);
        port = tcp.localAddress().getPort();
        file = tmp.resolve("app.sock");
        unix = Socket.newSocketDomain();
        unix.bind(new DomainSocketAddress(file.toString()));
        unix.listen(16);
    }

    @AfterEach
    void close() throws Exception {
        if (tcp != null) {
            tcp.close();
            unix.close();
        }
    }

    private ActivatedSockets activated() throws Exception {
        return ActivatedSockets.of(List.of(tcp.intValue(), unix.intValue()));
    }

    @Test
    void eachSocketIsKnownByTheBindUriItAnswers() throws Exception {
        assertEquals(List.of("tcp://127.0.0.1:" + port, "unix://" + file), activated().keys());
    }

    @Test
    void bindToActivatedSocketsAddsOrKeepsOnlyTheActivatedBindsAndAnSslBindOnTheSamePortStaysTls() throws Exception {
        String ssl = "ssl://127.0.0.1:" + port + "?cert=/c&key=/k";
        List<String> binds = List.of("tcp://0.0.0.0:9292", ssl);
        assertEquals(binds, activated().binds(binds, "false"));
        assertEquals(List.of("tcp://0.0.0.0:9292", ssl, "unix://" + file), activated().binds(binds, "true"));
        assertEquals(List.of(ssl, "unix://" + file), activated().binds(binds, "only"));
        assertEquals(List.of("tcp://127.0.0.1:" + port, "unix://" + file), activated().binds(List.of("tcp://0.0.0.0:9292"), "only"));
    }

    @Test
    void aBindMatchesItsActivatedSocketHoweverItsPathIsWrittenSoNoSecondBindIsAdded() throws Exception {
        String relative = tmp.relativize(file).toString(); // "app.sock" relative to tmp: resolved from the cwd
        String spelled = "unix://" + file.getParent() + "/./" + file.getFileName();
        List<String> binds = List.of("tcp://127.0.0.1:" + port, spelled);
        assertEquals(binds, activated().binds(binds, "true"), "both sockets are those binds' already");
        assertEquals(List.of("tcp://127.0.0.1:" + port, "unix://" + file),
                activated().binds(List.of("unix://" + relative), "only"), "a path that names another file matches nothing");
    }

    @Test
    void aBindTakesTheSocketOnItsAddressOrFileAndTheRestAreClosed() throws Exception {
        ActivatedSockets sockets = activated();
        assertEquals(-1, sockets.take(BindAddress.parse("tcp://0.0.0.0:" + port)));
        assertEquals(-1, sockets.take(BindAddress.parse("tcp://localhost:" + port)), "a host name matches nothing, as in puma");
        assertEquals(tcp.intValue(), sockets.take(BindAddress.parse("tcp://127.0.0.1:" + port)));
        assertEquals(-1, sockets.take(BindAddress.parse("tcp://127.0.0.1:" + port)), "taken once");
        assertEquals(List.of("unix://" + file), sockets.closeUnused());
        assertFalse(Files.exists(file), "the unused unix socket's file is removed");
        unix = Socket.newSocketDomain(); // its descriptor was closed above: never close that number twice
    }

    @Test
    void socketsMeantForAnotherProcessAreNotOurs() throws Exception {
        assertTrue(ActivatedSockets.fromEnvironment(Map.of("LISTEN_FDS", "2", "LISTEN_PID", "1"), 42).keys().isEmpty());
        assertTrue(ActivatedSockets.fromEnvironment(Map.of(), 42).keys().isEmpty());
    }
}
