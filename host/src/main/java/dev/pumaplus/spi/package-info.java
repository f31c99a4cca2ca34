/**
 * The services the host offers to bundles — the one request queue, the resolved configuration, the load
 * signals, the concurrency limit of fiber slots, the worker pool and the WebSocket hub — and the services
 * bundles offer back (listeners, actuators, the autoscaler).
 * Bundles look these up in the OSGi service registry; they never see the host's implementation classes.
 */
@Export
@Version("4.0.0")
package dev.pumaplus.spi;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
