/*
 * The host's services as a protocol bundle's ProtocolFactory gets them while it opens (before accept).
 */
package dev.pumaplus.spi;

/**
 * Services looked up on behalf of the opening bundle and released when it stops. Only while
 * {@link ProtocolFactory#open} runs, on its thread.
 */
public interface ProtocolServices {

    /** The resolved configuration. */
    HostSettings settings();

    /** The one request queue. */
    RequestQueue queue();

    /**
     * A service the host offers beyond settings and queue (e.g. {@link EventLoops}); throws naming it when it
     * is missing, which fails the bundle's start.
     */
    <T> T host(Class<T> type);

    /** A service another bundle may offer (e.g. {@link Http2Handoff}), or null. */
    <T> T optional(Class<T> type);
}
