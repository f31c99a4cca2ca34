/**
 * The framework room: the embedded Apache Felix — starting it with the system packages the host's class
 * path exports (computed from the jars' manifests), installing and starting bundles, routing its log into
 * the host's one log, and stopping it.
 *
 * <p>May use: the JDK and Felix only. Must never touch: any other host room; bundles reach the host through
 * the service registry, never through this room.
 */
package dev.pumaplus.host.framework;
