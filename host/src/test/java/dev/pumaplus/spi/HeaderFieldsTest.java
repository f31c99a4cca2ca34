/*
 * HeaderFields decides which of an app's response header fields reach a client on every protocol.
 */
package dev.pumaplus.spi;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(5)
class HeaderFieldsTest {

    @Test
    void namesAreTokensAndNothingElse() {
        assertTrue(HeaderFields.isToken("X-Request-Id"));
        assertTrue(HeaderFields.isToken("a!#$%&'*+-.^_`|~9"));
        assertFalse(HeaderFields.isToken(""));
        assertFalse(HeaderFields.isToken("Set Cookie"));
        assertFalse(HeaderFields.isToken("X:Y"));
        assertFalse(HeaderFields.isToken("Ünicode"));
    }

    @Test
    void valuesThatCouldSplitAResponseOrAreNotOneBytePerCharAreRefused() {
        assertTrue(HeaderFields.isFieldValue(""));
        assertTrue(HeaderFields.isFieldValue("text/html; charset=\u00e9"));
        assertFalse(HeaderFields.isFieldValue("a\r\nSet-Cookie: x=1"));
        assertFalse(HeaderFields.isFieldValue("a\nb"));
        assertFalse(HeaderFields.isFieldValue("a\0b"));
        assertFalse(HeaderFields.isFieldValue("\u20ac"));
    }

    @Test
    void connectionSpecificFieldsAreTheOnesHttp2AndHttp3Forbid() {
        for (String name : new String[] {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"}) {
            assertTrue(HeaderFields.isConnectionSpecific(name), name);
        }
        assertFalse(HeaderFields.isConnectionSpecific("content-length"));
        assertFalse(HeaderFields.isConnectionSpecific("te"));
    }
}
