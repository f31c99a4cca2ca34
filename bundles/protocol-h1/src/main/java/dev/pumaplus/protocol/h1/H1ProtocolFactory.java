/*
 * Opens the HTTP/1.1 protocol bundle inside the host's OSGi framework: the factory its manifest names, with
 * which the host opens the listeners (accept → parse → queue → ...) when the bundle starts and registers them
 * as a Listener service for its graceful stop; stopping the bundle closes them.
 */
package dev.pumaplus.protocol.h1;

import dev.pumaplus.spi.EventLoops;
import dev.pumaplus.spi.Http2Handoff;
import dev.pumaplus.spi.Http3Endpoints;
import dev.pumaplus.spi.Listener;
import dev.pumaplus.spi.ProtocolEndpoint;
import dev.pumaplus.spi.ProtocolFactory;
import dev.pumaplus.spi.ProtocolServices;
import dev.pumaplus.spi.WebSocketHub;
import java.util.List;

/** The bundle's factory: its endpoint binds every configured address, or fails naming the address. */
public final class H1ProtocolFactory implements ProtocolFactory {

    @Override
    public ProtocolEndpoint open(ProtocolServices host) {
        // Optional: protocol-h2 and protocol-h3 are started before this bundle when the deployment loads them;
        // without the host's WebSocket hub (a host embedding the bundle for tests) a handshake is a request.
        H1Server server = new H1Server(host.settings(), host.queue(), host.host(EventLoops.class),
                host.optional(Http2Handoff.class), host.optional(Http3Endpoints.class),
                host.optional(WebSocketHub.class));
        server.start();
        return new ProtocolEndpoint("http/1.1", server, List.of(Listener.class), server::close);
    }
}
