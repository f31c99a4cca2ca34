/*
 * The host's one logging path: java.lang.System.Logger (backed by java.util.logging) ends here for the host,
 * its bundles, Netty (InternalLoggerFactory), Felix (FelixLog) and Kwik (the h3 bundle's KwikLog). Each record
 * becomes one line of LogFormat on stdout (info and below) or stderr (warnings and errors), as the host's
 * println lines went before.
 */
package dev.pumaplus.host.boot;

import dev.pumaplus.host.config.LogFormat;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.netty.util.internal.logging.JdkLoggerFactory;
import java.io.PrintStream;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The only handler of the root java.util.logging logger (level INFO). Lines go to {@link System#out} or
 * {@link System#err} as they are when the record is published, so a {@code stdout_redirect} (which replaces
 * them) takes effect for every later line. Each line is written and flushed under one lock: lines from
 * concurrent threads never interleave. Thread-safe.
 */
final class HostLogHandler extends Handler {

    private HostLogHandler() {
        setFormatter(LogFormat.TEXT);
    }

    /**
     * Makes this the one handler of the root logger (dropping the JDK's default console handler) and routes
     * Netty's internal logging into java.util.logging. Call first in {@code main}, before any Netty class
     * makes its logger.
     */
    static HostLogHandler install() {
        InternalLoggerFactory.setDefaultFactory(JdkLoggerFactory.INSTANCE);
        LogManager.getLogManager().reset();
        Logger root = Logger.getLogger("");
        HostLogHandler handler = new HostLogHandler();
        root.setLevel(Level.INFO);
        root.addHandler(handler);
        return handler;
    }

    @Override
    public void publish(LogRecord record) {
        if (!isLoggable(record)) {
            return;
        }
        String line = getFormatter().format(record);
        PrintStream target = record.getLevel().intValue() >= Level.WARNING.intValue() ? System.err : System.out;
        synchronized (this) {
            target.print(line);
            target.flush();
        }
    }

    @Override
    public void flush() {
        synchronized (this) {
            System.out.flush();
            System.err.flush();
        }
    }

    /** Flushes; the streams belong to the process and stay open. */
    @Override
    public void close() {
        flush();
    }
}
