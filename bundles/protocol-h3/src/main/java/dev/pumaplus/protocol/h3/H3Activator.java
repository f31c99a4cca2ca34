/*
 * Starts and stops the HTTP/3 protocol bundle inside the host's OSGi framework: registers the
 * Http3Endpoints service through which protocol-h1 opens QUIC beside each TLS listener (accept step), and
 * a Listener for the host's graceful stop. Loaded only when the deployment lists h3 in `bundles`.
 */
package dev.pumaplus.protocol.h3;

import dev.pumaplus.spi.ConnectionSettings;
import dev.pumaplus.spi.EventLoops;
import dev.pumaplus.spi.HostSettings;
import dev.pumaplus.spi.Http3Endpoints;
import dev.pumaplus.spi.Listener;
import dev.pumaplus.spi.ProtocolActivator;
import dev.pumaplus.spi.RequestQueue;
import dev.pumaplus.spi.WebSocketHub;
import dev.pumaplus.spi.WebSocketSettings;
import java.util.List;

/**
 * The bundle's activator. Stopping closes every QUIC listener and its connections. WebTransport is offered
 * when the host holds WebSockets (its WebSocketHub service; a host embedding the bundle without one has none).
 */
public final class H3Activator extends ProtocolActivator {

    public H3Activator() {
        super("protocol-h3", "h3");
    }

    @Override
    protected Endpoint open(HostSettings settings, RequestQueue queue) {
        ConnectionSettings connections = ConnectionSettings.from(settings);
        H3Endpoints endpoints = new H3Endpoints(queue, connections.contentLengthLimit(),
                (int) Math.min(Integer.MAX_VALUE, connections.persistentTimeout().toSeconds()),
                host(EventLoops.class).group(), connections.firstDataTimeout().toNanos(),
                optional(WebSocketHub.class), WebTransportLimits.from(WebSocketSettings.from(settings)));
        return new Endpoint(endpoints, List.of(Http3Endpoints.class, Listener.class), endpoints::close);
    }
}
