/*
 * Claims about parsing the `binds` setting (the accept step of accept → parse → queue → ...): the forms
 * docs/CONFIG.md allows, and rejections that name the bad value.
 */
package dev.pumaplus.protocol.h1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 5, unit = TimeUnit.SECONDS)
class BindAddressTest {

    @Test
    void parsesHostAndPortAndAnnouncesTheActualPort() {
        BindAddress bind = BindAddress.parse("tcp://0.0.0.0:9292");
        assertEquals(new BindAddress("0.0.0.0", 9292), bind);
        assertEquals("http://0.0.0.0:4000", bind.url(4000));
        assertEquals(9292, bind.socketAddress().getPort());
    }

    @Test
    void ipv6LiteralKeepsItsBracketsInTheUrlButNotInTheSocketAddress() {
        BindAddress bind = BindAddress.parse("tcp://[::1]:0");
        assertEquals("[::1]", bind.host());
        assertEquals("http://[::1]:8080", bind.url(8080));
        assertEquals("0:0:0:0:0:0:0:1", bind.socketAddress().getAddress().getHostAddress());
    }

    @Test
    void rejectsWhatIsNotTcpHostPortNamingTheValue() {
        for (String bad : new String[] {"http://0.0.0.0:80", "tcp://0.0.0.0", "tcp://:80", "tcp://h:99999",
                "tcp://h:x", "tcp://[::1", "unix://", "unix://@abstract", "unix:///tmp/s?mode=9",
                "unix:///tmp/s?owner=me"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BindAddress.parse(bad));
            assertTrue(e.getMessage().contains(bad), e.getMessage());
        }
    }

    @Test
    void sslBindCarriesItsUrlDecodedCertAndKeyAndAnnouncesHttps() {
        BindAddress bind = BindAddress.parse("ssl://127.0.0.1:9443?cert=%2Ftmp%2Fa+b.crt&key=/tmp/k.pem&verify_mode=none");
        assertTrue(bind.tls());
        assertEquals(java.nio.file.Path.of("/tmp/a b.crt"), bind.cert());
        assertEquals(java.nio.file.Path.of("/tmp/k.pem"), bind.key());
        assertEquals("https://127.0.0.1:8443", bind.url(8443));
    }

    @Test
    void sslBindWithoutCertAndKeyOrWithUnknownParametersIsRefused() {
        for (String bad : new String[] {"ssl://127.0.0.1:9443", "ssl://127.0.0.1:9443?cert=/c", "ssl://h:1?cert=/c&key=/k&ca=/x",
                "ssl://h:1?cert=/c&key=/k&verify_mode=peer", "tcp://h:1?cert=/c&key=/k"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BindAddress.parse(bad));
            assertTrue(e.getMessage().contains(bad), e.getMessage());
        }
    }

    @Test
    void unixBindCarriesItsSocketFileAndPumasUmaskModeAndBacklog() {
        BindAddress plain = BindAddress.parse("unix:///tmp/app%20one.sock");
        assertTrue(plain.isUnix());
        assertEquals(java.nio.file.Path.of("/tmp/app one.sock"), plain.socketFile());
        assertEquals("unix:///tmp/app one.sock", plain.url(0));
        assertEquals(java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"), plain.socketPermissions());

        BindAddress masked = BindAddress.parse("unix://tmp/app.sock?umask=0027&backlog=16");
        assertEquals(java.nio.file.Path.of("tmp/app.sock"), masked.socketFile());
        assertEquals(java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-x---"), masked.socketPermissions());
        assertEquals(16, masked.backlog());

        BindAddress moded = BindAddress.parse("unix:///tmp/app.sock?umask=0077&mode=660");
        assertEquals(java.nio.file.attribute.PosixFilePermissions.fromString("rw-rw----"), moded.socketPermissions());
    }
}
