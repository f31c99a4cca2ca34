/*
 * Kwik's logger for the HTTP/3 listeners (H3Endpoints), routed into the host's one log through
 * java.lang.System.Logger: a QUIC connection's errors and warnings reach the operator, its packet traces do not.
 */
package dev.pumaplus.protocol.h3;

import java.nio.ByteBuffer;
import tech.kwik.core.log.BaseLogger;

/**
 * Kwik's error becomes ERROR and its warn WARNING; info, debug and the per-category traces Kwik writes when
 * a category is switched on (packets, secrets, congestion control: all off here) become DEBUG, below the
 * host's INFO threshold. Called on Kwik's threads; keeps no state of its own.
 */
final class KwikLog extends BaseLogger {

    private static final System.Logger LOG = System.getLogger("tech.kwik");

    @Override
    public void error(String message) {
        LOG.log(System.Logger.Level.ERROR, message);
    }

    @Override
    public void error(String message, Throwable error) {
        LOG.log(System.Logger.Level.ERROR, message, error);
    }

    @Override
    public void warn(String message) {
        LOG.log(System.Logger.Level.WARNING, message);
    }

    @Override
    public void info(String message) {
        LOG.log(System.Logger.Level.DEBUG, message);
    }

    @Override
    public void debug(String message) {
        LOG.log(System.Logger.Level.DEBUG, message);
    }

    @Override
    public void debug(String message, Exception error) {
        LOG.log(System.Logger.Level.DEBUG, message, error);
    }

    @Override
    protected void log(String text) {
        LOG.log(System.Logger.Level.DEBUG, text);
    }

    @Override
    protected void log(String text, Throwable error) {
        LOG.log(System.Logger.Level.DEBUG, text, error);
    }

    @Override
    protected void logWithHexDump(String text, byte[] data, int length) {
        LOG.log(System.Logger.Level.DEBUG, text);
    }

    @Override
    protected void logWithHexDump(String text, ByteBuffer data, int offset, int length) {
        LOG.log(System.Logger.Level.DEBUG, text);
    }
}
