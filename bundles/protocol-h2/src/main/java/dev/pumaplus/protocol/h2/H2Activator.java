/*
 * Starts and stops the HTTP/2 protocol bundle inside the host's OSGi framework: registers the Http2Handoff
 * service through which protocol-h1 hands over h2 and h2c connections (accept → parse), and a Listener for
 * the host's graceful stop.
 */
package dev.pumaplus.protocol.h2;

import dev.pumaplus.spi.ConnectionSettings;
import dev.pumaplus.spi.HostSettings;
import dev.pumaplus.spi.Http2Handoff;
import dev.pumaplus.spi.Listener;
import dev.pumaplus.spi.ProtocolActivator;
import dev.pumaplus.spi.RequestQueue;
import dev.pumaplus.spi.WebSocketHub;
import dev.pumaplus.spi.WebSocketSettings;
import java.util.List;

/**
 * The bundle's activator. Opens no socket itself: protocol-h1 owns the TCP listeners and is started after
 * this bundle, so it finds the handoff service when it binds. Stopping closes every HTTP/2 connection
 * (GOAWAY first).
 */
public final class H2Activator extends ProtocolActivator {

    public H2Activator() {
        super("protocol-h2", "h2");
    }

    @Override
    protected Endpoint open(HostSettings settings, RequestQueue queue) {
        // Optional, as for protocol-h1: without the host's WebSocket hub no extended CONNECT is offered.
        WebSocketHub hub = optional(WebSocketHub.class);
        H2WebSockets webSockets = hub == null ? null : new H2WebSockets(hub, WebSocketSettings.from(settings),
                ConnectionSettings.from(settings).writeTimeout().toSeconds());
        H2Connections connections = new H2Connections(queue, H2Config.from(settings), webSockets);
        return new Endpoint(connections, List.of(Http2Handoff.class, Listener.class), connections::close);
    }
}
