/*
 * Claims about the system-packages list the launcher gives Felix, so bundles resolve Netty, Jackson and
 * the host's SPI against the one copy on the host's class path.
 */
package dev.pumaplus.host.framework;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class ExportedPackagesTest {

    @Test
    void directivesAreDroppedAndVersionsKeptEvenWithQuotedCommas() {
        Map<String, String> packages = new LinkedHashMap<>();
        ExportedPackages.parse("io.netty.buffer;uses:=\"io.netty.util,io.netty.util.internal\";version=\"4.2.18\","
                + "a.b;c.d;version=1.0,plain", packages);
        assertEquals(Map.of("io.netty.buffer", "4.2.18", "a.b", "1.0", "c.d", "1.0"),
                Map.of("io.netty.buffer", packages.get("io.netty.buffer"), "a.b", packages.get("a.b"), "c.d", packages.get("c.d")));
        assertTrue(packages.containsKey("plain"));
        assertEquals(null, packages.get("plain"));
    }

    @Test
    void classPathExportsNettyJacksonAndTheHostContractButNotTheFrameworkApi() throws Exception {
        String extra = ExportedPackages.fromClassPath();
        assertTrue(extra.contains("io.netty.buffer;version="), extra);
        assertTrue(extra.contains("io.netty.channel.epoll;version="), extra);
        assertTrue(extra.contains("com.fasterxml.jackson.databind;version="), extra);
        assertTrue(extra.contains("dev.pumaplus.spi;version=\"5.0.0\""), extra);
        assertTrue(extra.contains("dev.pumaplus.wire;version=\"6.0.0\""), extra);
        assertFalse(extra.contains("org.osgi.framework;"), "the system bundle exports the OSGi API itself");
        assertFalse(extra.contains("dev.pumaplus.host"), "the host's private package stays private");
    }
}
