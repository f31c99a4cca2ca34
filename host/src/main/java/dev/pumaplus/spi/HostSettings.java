package dev.pumaplus.spi;

import java.util.List;

/**
 * The resolved configuration (docs/CONFIG.md) as the shepherd sent it, registered as an OSGi service
 * before any protocol bundle starts. Keys are the JSON keys of the CONFIG frame.
 */
public interface HostSettings {

    /** A string setting, or {@code fallback} when absent or null. */
    String string(String key, String fallback);

    /** A numeric setting, or {@code fallback} when absent or null. */
    long number(String key, long fallback);

    /** A list-of-strings setting; empty when absent. */
    List<String> strings(String key);

    /**
     * A protocol bundle calls this once it is accepting on {@code url} (with the real port when the
     * configured one was 0), so the host can announce it.
     */
    void listening(String url);
}
