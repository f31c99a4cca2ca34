/*
 * Starts and stops the HTTP/1.1 protocol bundle inside the host's OSGi framework: opens the listeners
 * (accept → parse → queue → ...) and registers them as a Listener service for the host's graceful stop.
 */
package dev.pumaplus.protocol.h1;

import dev.pumaplus.spi.EventLoops;
import dev.pumaplus.spi.HostSettings;
import dev.pumaplus.spi.Http2Handoff;
import dev.pumaplus.spi.Http3Endpoints;
import dev.pumaplus.spi.Listener;
import dev.pumaplus.spi.ProtocolActivator;
import dev.pumaplus.spi.RequestQueue;
import dev.pumaplus.spi.WebSocketHub;
import java.util.List;

/** The bundle's activator: binds every configured address, or fails naming the address. */
public final class H1Activator extends ProtocolActivator {

    public H1Activator() {
        super("protocol-h1", "http/1.1");
    }

    @Override
    protected Endpoint open(HostSettings settings, RequestQueue queue) {
        // Optional: protocol-h2 and protocol-h3 are started before this bundle when the deployment loads them;
        // without the host's WebSocket hub (a host embedding the bundle for tests) a handshake is a request.
        H1Server server = new H1Server(settings, queue, host(EventLoops.class), optional(Http2Handoff.class),
                optional(Http3Endpoints.class), optional(WebSocketHub.class));
        server.start();
        return new Endpoint(server, List.of(Listener.class), server::close);
    }
}
