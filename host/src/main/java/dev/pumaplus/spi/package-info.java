/**
 * The services the host offers to bundles — the one request queue, the resolved configuration, the load
 * signals, the concurrency limit of fiber slots, the worker pool and the WebSocket hub — what they make for
 * a protocol (a body buffer, a response's backpressure, a held WebSocket), and the services bundles offer
 * back (listeners, actuators, the autoscaler), with the factory a protocol or actuator bundle names in its
 * manifest. Contracts only: interfaces, records, enums and constants (RoomRulesTest holds it).
 * Bundles look these up in the OSGi service registry; they never see the host's implementation classes.
 */
@Export
@Version("5.0.0")
package dev.pumaplus.spi;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
