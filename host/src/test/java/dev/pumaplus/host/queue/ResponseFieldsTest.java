/*
 * ResponseFields decides which of an app's response header fields reach a client on every protocol.
 */
package dev.pumaplus.host.queue;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(5)
class ResponseFieldsTest {

    @Test
    void namesAreTokensAndNothingElse() {
        assertTrue(ResponseFields.isToken("X-Request-Id"));
        assertTrue(ResponseFields.isToken("a!#$%&'*+-.^_`|~9"));
        assertFalse(ResponseFields.isToken(""));
        assertFalse(ResponseFields.isToken("Set Cookie"));
        assertFalse(ResponseFields.isToken("X:Y"));
        assertFalse(ResponseFields.isToken("Ünicode"));
    }

    @Test
    void valuesThatCouldSplitAResponseOrAreNotOneBytePerCharAreRefused() {
        assertTrue(ResponseFields.isFieldValue(""));
        assertTrue(ResponseFields.isFieldValue("text/html; charset=\u00e9"));
        assertFalse(ResponseFields.isFieldValue("a\r\nSet-Cookie: x=1"));
        assertFalse(ResponseFields.isFieldValue("a\nb"));
        assertFalse(ResponseFields.isFieldValue("a\0b"));
        assertFalse(ResponseFields.isFieldValue("\u20ac"));
    }
}
