/*
 * Opens the HTTP/3 protocol bundle inside the host's OSGi framework: the factory its manifest names, with
 * which the host registers the Http3Endpoints service through which protocol-h1 opens QUIC beside each TLS
 * listener (accept step), and a Listener for the host's graceful stop. Loaded only when the deployment lists
 * h3 in `bundles`.
 */
package dev.pumaplus.protocol.h3;

import dev.pumaplus.spi.ConnectionSettings;
import dev.pumaplus.spi.EventLoops;
import dev.pumaplus.spi.HostSettings;
import dev.pumaplus.spi.Http3Endpoints;
import dev.pumaplus.spi.Listener;
import dev.pumaplus.spi.ProtocolEndpoint;
import dev.pumaplus.spi.ProtocolFactory;
import dev.pumaplus.spi.ProtocolServices;
import dev.pumaplus.spi.WebSocketHub;
import dev.pumaplus.spi.WebTransportSettings;
import java.util.List;

/**
 * The bundle's factory. Stopping closes every QUIC listener and its connections. WebTransport is offered
 * when the host holds WebSockets (its WebSocketHub service; a host embedding the bundle without one has none).
 */
public final class H3ProtocolFactory implements ProtocolFactory {

    @Override
    public ProtocolEndpoint open(ProtocolServices host) {
        HostSettings settings = host.settings();
        ConnectionSettings connections = ConnectionSettings.from(settings);
        H3Endpoints endpoints = new H3Endpoints(host.queue(), connections.contentLengthLimit(),
                (int) Math.min(Integer.MAX_VALUE, connections.persistentTimeout().toSeconds()),
                host.host(EventLoops.class).group(), connections.firstDataTimeout().toNanos(),
                host.optional(WebSocketHub.class), WebTransportLimits.from(WebTransportSettings.from(settings)));
        return new ProtocolEndpoint("h3", endpoints, List.of(Http3Endpoints.class, Listener.class), endpoints::close);
    }
}
