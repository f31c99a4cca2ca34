/*
 * Felix's framework logger (the felix.log.logger property of EmbeddedFelix) routed into the host's one log:
 * what Felix reports about bundles (a failed resolve, an activator that threw) reaches HostLogHandler.
 */
package dev.pumaplus.host.framework;

import org.apache.felix.framework.Logger;
import org.osgi.framework.Bundle;
import org.osgi.framework.ServiceReference;

/**
 * Felix's levels 1 error, 2 warning, 3 info, 4 debug become System.Logger's ERROR, WARNING, INFO, DEBUG;
 * the message names the bundle it is about. Felix filters by {@code felix.log.level} before calling.
 * Called on whichever thread Felix logs from.
 */
final class FelixLog extends Logger {

    private static final System.Logger LOG = System.getLogger("org.apache.felix.framework");

    @Override
    protected void doLog(Bundle bundle, ServiceReference sr, int level, String msg, Throwable throwable) {
        String text = bundle == null || bundle.getSymbolicName() == null ? msg : bundle.getSymbolicName() + ": " + msg;
        System.Logger.Level mapped = switch (level) {
            case LOG_ERROR -> System.Logger.Level.ERROR;
            case LOG_WARNING -> System.Logger.Level.WARNING;
            case LOG_INFO -> System.Logger.Level.INFO;
            default -> System.Logger.Level.DEBUG;
        };
        LOG.log(mapped, text, throwable);
    }
}
