/*
 * Kwik's logger for the HTTP/3 listeners (H3Endpoints), routed into the host's one log through
 * java.lang.System.Logger: a QUIC connection's errors reach the operator, its traces do not.
 */
package dev.pumaplus.protocol.h3;

import java.nio.ByteBuffer;
import tech.kwik.core.log.BaseLogger;

/**
 * Kwik's errors (a connection or packet it could not handle, mostly a client's doing) become WARNING: seen,
 * on stderr, without claiming the server failed. Everything else Kwik writes only for a category switched
 * on, warnings included (they report routine flow control, e.g. "Received StreamDataBlockedFrame"); none is
 * here, and those writes go through the {@code log} methods: DEBUG, below the host's INFO threshold. Called
 * on Kwik's threads; keeps no state of its own. (Not final: the tests' HTTP/3 client, H3Probe, logs through
 * it too and counts the frames it sends.)
 */
class KwikLog extends BaseLogger {

    private static final System.Logger LOG = System.getLogger("tech.kwik");

    @Override
    public void error(String message, Throwable error) {
        LOG.log(System.Logger.Level.WARNING, message, error);
    }

    @Override
    public void error(String message) {
        error(message, null);
    }

    /** What a switched-on category writes (see the class comment); the hex dumps' bytes are left out. */
    @Override
    protected void log(String text) {
        log(text, null);
    }

    @Override
    protected void log(String text, Throwable error) {
        LOG.log(System.Logger.Level.DEBUG, text, error);
    }

    @Override
    protected void logWithHexDump(String text, byte[] data, int length) {
        log(text);
    }

    @Override
    protected void logWithHexDump(String text, ByteBuffer data, int offset, int length) {
        log(text);
    }
}
