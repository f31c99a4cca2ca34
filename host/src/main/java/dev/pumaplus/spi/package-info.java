/**
 * The services the host offers to protocol bundles: the one request queue and the resolved configuration.
 * Bundles look these up in the OSGi service registry; they never see the host's implementation classes.
 */
@Export
@Version("1.2.0")
package dev.pumaplus.spi;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
