/*
 * How a protocol bundle opens its endpoint inside the host's OSGi framework (before accept): the bundle
 * names its implementation of this in its manifest; when the bundle starts the host opens it with the
 * host's services, registers what it made as the bundle's services, and closes it, in reverse, when the
 * bundle stops.
 */
package dev.pumaplus.spi;

/**
 * Named by a protocol bundle's {@link #HEADER} manifest header, one per bundle, with a public no-argument
 * constructor; the bundle needs no activator. The host makes one and calls it once, on the thread that
 * starts the bundle (the host's services are registered before any protocol bundle starts, so a missing one
 * fails the open rather than being waited for).
 */
@FunctionalInterface
public interface ProtocolFactory {

    /** The manifest header whose value is the bundle's implementing class, e.g. in its bnd instructions. */
    String HEADER = "PumaPlus-ProtocolFactory";

    /**
     * Opens the bundle's endpoint, binding sockets if it owns any; throws to refuse (the host then fails the
     * bundle's start, naming the cause). The endpoint's {@code close} must release its sockets and event
     * loops before it returns.
     */
    ProtocolEndpoint open(ProtocolServices host);
}
