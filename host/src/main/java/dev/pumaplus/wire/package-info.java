/**
 * The worker link's frame codec (docs/PROTOCOL.md): frame types, the 8-byte header and the payload
 * layouts, shared by the host and any bundle that needs to speak it.
 */
@Export
@Version("6.0.0")
package dev.pumaplus.wire;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
