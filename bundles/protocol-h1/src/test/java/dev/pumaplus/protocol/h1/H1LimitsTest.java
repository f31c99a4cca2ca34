/*
 * The connection bound a listener derives when max_connections is not set (the accept step).
 */
package dev.pumaplus.protocol.h1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class H1LimitsTest {

    @Test
    void derivedBoundSharesTheDescriptorsLeftAfterTheReserveEvenlyAmongTheListeners() {
        assertEquals(1_048_576 - 512, H1Limits.derivedConnectionsPerListener(1_048_576, 1));
        assertEquals((20_000 - 512) / 2, H1Limits.derivedConnectionsPerListener(20_000, 2));
    }

    @Test
    void derivedBoundNeverFallsBelowTheMinimumUnderATinyDescriptorLimit() {
        assertEquals(H1Limits.MIN_DERIVED_CONNECTIONS, H1Limits.derivedConnectionsPerListener(256, 1));
    }

    @Test
    void thisProcesssDescriptorLimitIsRead() {
        long limit = H1Limits.descriptorLimit();
        assertTrue(limit > 0, "limit " + limit);
    }
}
