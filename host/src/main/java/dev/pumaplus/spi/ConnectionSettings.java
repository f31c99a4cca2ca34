/*
 * The settings every protocol bundle applies to its client connections (accept → parse → respond), typed and
 * with their defaults named once: the host's own configuration record takes the same defaults from here.
 */
package dev.pumaplus.spi;

import java.time.Duration;

/**
 * Client-connection settings from the host's resolved configuration (docs/CONFIG.md, "The CONFIG frame").
 * A key the configuration lacks (or sends as null) takes the default named here, which is what the gem sends
 * when nothing is configured; the host's HostConfigTest and the gem's ConfigurationDocTest hold both to the
 * documented default column. Immutable.
 *
 * @param contentLengthLimit largest request body in bytes ({@code http_content_length_limit}); {@link #NO_LIMIT}
 *                           when there is none
 * @param firstDataTimeout   how long a new connection may take to send its first bytes ({@code first_data_timeout})
 * @param persistentTimeout  how long an idle keep-alive connection is kept open ({@code persistent_timeout})
 * @param writeTimeout       how long response bytes may wait without any of them reaching the client's socket
 *                           ({@code write_timeout})
 * @param headerTimeout      how long a request's header section may take in total, from its first byte to its
 *                           end ({@code header_timeout}); a trickle of bytes does not extend it
 * @param maxConnections     client connections one listener keeps open at once ({@code max_connections});
 *                           {@link #DERIVED} when the listener derives it from the process's descriptor limit
 * @param maxPipelinedRequests requests an HTTP/1.1 connection may have read and not yet answered
 *                           ({@code max_pipelined_requests}); beyond it the connection is not read
 */
public record ConnectionSettings(long contentLengthLimit, Duration firstDataTimeout, Duration persistentTimeout,
                                 Duration writeTimeout, Duration headerTimeout, int maxConnections,
                                 int maxPipelinedRequests) {

    /** {@link #contentLengthLimit()} when request bodies are unlimited (the default). */
    public static final long NO_LIMIT = -1;
    public static final Duration DEFAULT_FIRST_DATA_TIMEOUT = Duration.ofSeconds(30);
    public static final Duration DEFAULT_PERSISTENT_TIMEOUT = Duration.ofSeconds(20);
    public static final Duration DEFAULT_WRITE_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_HEADER_TIMEOUT = Duration.ofSeconds(10);
    /** {@link #maxConnections()} when none is configured: each listener derives its own bound. */
    public static final int DERIVED = -1;
    public static final int DEFAULT_MAX_PIPELINED_REQUESTS = 16;

    /** The settings {@code settings} holds, each missing one at its default. */
    public static ConnectionSettings from(HostSettings settings) {
        return new ConnectionSettings(
                settings.number("http_content_length_limit", NO_LIMIT),
                seconds(settings, "first_data_timeout", DEFAULT_FIRST_DATA_TIMEOUT),
                seconds(settings, "persistent_timeout", DEFAULT_PERSISTENT_TIMEOUT),
                seconds(settings, "write_timeout", DEFAULT_WRITE_TIMEOUT),
                seconds(settings, "header_timeout", DEFAULT_HEADER_TIMEOUT),
                (int) settings.number("max_connections", DERIVED),
                (int) settings.number("max_pipelined_requests", DEFAULT_MAX_PIPELINED_REQUESTS));
    }

    private static Duration seconds(HostSettings settings, String key, Duration fallback) {
        return Duration.ofSeconds(settings.number(key, fallback.toSeconds()));
    }
}
