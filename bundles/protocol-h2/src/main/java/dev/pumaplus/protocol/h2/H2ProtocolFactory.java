/*
 * Opens the HTTP/2 protocol bundle inside the host's OSGi framework: the factory its manifest names, with
 * which the host registers the Http2Handoff service through which protocol-h1 hands over h2 and h2c
 * connections (accept → parse), and a Listener for the host's graceful stop.
 */
package dev.pumaplus.protocol.h2;

import dev.pumaplus.spi.HostSettings;
import dev.pumaplus.spi.Http2Handoff;
import dev.pumaplus.spi.Listener;
import dev.pumaplus.spi.ProtocolEndpoint;
import dev.pumaplus.spi.ProtocolFactory;
import dev.pumaplus.spi.ProtocolServices;
import dev.pumaplus.spi.WebSocketHub;
import java.util.List;

/**
 * The bundle's factory. Its endpoint opens no socket itself: protocol-h1 owns the TCP listeners and is
 * started after this bundle, so it finds the handoff service when it binds. Stopping closes every HTTP/2
 * connection (GOAWAY first).
 */
public final class H2ProtocolFactory implements ProtocolFactory {

    @Override
    public ProtocolEndpoint open(ProtocolServices host) {
        HostSettings settings = host.settings();
        // Optional, as for protocol-h1: without the host's WebSocket hub no extended CONNECT is offered.
        WebSocketHub hub = host.optional(WebSocketHub.class);
        H2WebSockets webSockets = hub == null ? null : new H2WebSockets(hub);
        H2Connections connections = new H2Connections(host.queue(), H2Config.from(settings), webSockets);
        return new ProtocolEndpoint("h2", connections, List.of(Http2Handoff.class, Listener.class),
                connections::close);
    }
}
