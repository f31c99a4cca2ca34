/*
 * What a protocol bundle's ProtocolFactory opened (before accept): the host registers it as the bundle's
 * services and runs its close when the bundle stops.
 */
package dev.pumaplus.spi;

import java.util.List;

/**
 * @param protocol the {@code protocol} property of its services, e.g. {@code h2}
 * @param service  the object to register
 * @param types    the service types it is registered under, e.g. {@link Listener}
 * @param close    releases the endpoint's sockets and event loops; run once, after its services are gone
 */
public record ProtocolEndpoint(String protocol, Object service, List<Class<?>> types, Runnable close) {

    public ProtocolEndpoint {
        types = List.copyOf(types);
    }
}
