/*
 * How a protocol bundle opens its endpoint inside the host's OSGi framework (before accept): the bundle's
 * activator registers one of these as a service; the host opens it with the host's services, registers what
 * it made as the bundle's services, and closes it, in reverse, when the bundle stops.
 */
package dev.pumaplus.spi;

/**
 * Registered by a protocol bundle's activator, one per bundle; the host calls it once, on the thread that
 * starts the bundle (the host's services are registered before any protocol bundle starts, so a missing one
 * fails the open rather than being waited for).
 */
@FunctionalInterface
public interface ProtocolFactory {

    /**
     * Opens the bundle's endpoint, binding sockets if it owns any; throws to refuse (the host then fails the
     * bundle's start, naming the cause). The endpoint's {@code close} must release its sockets and event
     * loops before it returns.
     */
    ProtocolEndpoint open(ProtocolServices host);
}
