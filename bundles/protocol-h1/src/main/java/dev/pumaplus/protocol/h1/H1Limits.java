/*
 * The fixed HTTP/1.x limits applied while parsing (the parse step of accept → parse → queue → ...), and the
 * connection bound a listener derives when none is configured (the accept step); the size at which a
 * request body stops being held in memory and is spooled to a file is RequestBodyBuffer's, shared by every
 * protocol.
 */
package dev.pumaplus.protocol.h1;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Constants and pure derivations; the parse limits follow puma's so a client sees the same limits as under puma. */
final class H1Limits {

    // ---- request parsing (H1HeadValidator, H1RequestDecoder); listed in docs/SECURITY.md ----

    /** Longest request-target (bytes) before the request is answered with 414; puma's MAX_REQUEST_URI_LENGTH. */
    static final int MAX_TARGET_BYTES = 12 * 1024;

    /**
     * Longest request line (bytes, without its CRLF; empty lines before it count) before the request is
     * answered with 414: the target limit plus room for a method and the version.
     */
    static final int MAX_REQUEST_LINE_BYTES = MAX_TARGET_BYTES + 1024;

    /**
     * Largest header section (bytes: the field lines without their CRLFs) before the request is answered
     * with 431; puma's MAX_HEADER. Netty applies it to a chunked body's trailer section too (400 there).
     */
    static final int MAX_HEADER_BYTES = 112 * 1024;

    /** Largest body piece (bytes) the decoder hands on at once. */
    static final int MAX_CHUNK_BYTES = 64 * 1024;

    /** First size (bytes) of the decoder's line buffer, which grows up to the limits above; Netty's default. */
    static final int INITIAL_LINE_BUFFER_BYTES = 128;

    // ---- connections ----

    /**
     * Descriptors kept out of the derived connection bound: worker links, the control app, log and temp
     * files, the JVM's own.
     */
    static final int RESERVED_DESCRIPTORS = 512;

    /** The descriptor limit assumed where the process's own cannot be read (not Linux). */
    static final long ASSUMED_DESCRIPTOR_LIMIT = 4096;

    /** The derived bound never goes below this, even under a tiny descriptor limit. */
    static final int MIN_DERIVED_CONNECTIONS = 64;

    /**
     * The connections each of {@code listeners} listeners may keep open when {@code max_connections} is not
     * set: the process's descriptor limit less {@link #RESERVED_DESCRIPTORS}, shared evenly, at least
     * {@link #MIN_DERIVED_CONNECTIONS}; so together the listeners cannot run the process out of descriptors.
     */
    static int derivedConnectionsPerListener(long descriptorLimit, int listeners) {
        long share = (descriptorLimit - RESERVED_DESCRIPTORS) / Math.max(1, listeners);
        return (int) Math.min(Integer.MAX_VALUE, Math.max(MIN_DERIVED_CONNECTIONS, share));
    }

    /**
     * The soft limit on open files of this process (the JVM raises it to the hard limit at start), from
     * {@code /proc/self/limits}; {@link #ASSUMED_DESCRIPTOR_LIMIT} where that cannot be read.
     */
    static long descriptorLimit() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
                if (line.startsWith("Max open files")) {
                    String soft = line.substring("Max open files".length()).trim().split("\\s+")[0];
                    return soft.equals("unlimited") ? Integer.MAX_VALUE : Long.parseLong(soft);
                }
            }
        } catch (IOException | RuntimeException e) {
            return ASSUMED_DESCRIPTOR_LIMIT;
        }
        return ASSUMED_DESCRIPTOR_LIMIT;
    }

    private H1Limits() {
    }
}
