/*
 * HeaderFields names the response fields h2 and h3 never send.
 */
package dev.pumaplus.spi;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(5)
class HeaderFieldsTest {

    @Test
    void connectionSpecificFieldsAreTheOnesHttp2AndHttp3Forbid() {
        for (String name : new String[] {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"}) {
            assertTrue(HeaderFields.CONNECTION_SPECIFIC.contains(name), name);
        }
        assertFalse(HeaderFields.CONNECTION_SPECIFIC.contains("content-length"));
        assertFalse(HeaderFields.CONNECTION_SPECIFIC.contains("te"));
    }
}
