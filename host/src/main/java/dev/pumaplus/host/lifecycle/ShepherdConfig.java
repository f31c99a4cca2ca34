/*
 * The resolved configuration the shepherd sent in its CONFIG frame (docs/CONFIG.md), offered to protocol
 * bundles as the HostSettings service (the host's own settings are its HostConfig); also where a bundle
 * announces the address it listens on.
 */
package dev.pumaplus.host.lifecycle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pumaplus.host.config.HostConfig;
import dev.pumaplus.spi.HostSettings;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * An immutable view of the CONFIG JSON: by key for bundles, as the typed {@link HostConfig} for the host.
 * {@link #listening} prints the "listening on" line through the launcher's announcer. Thread-safe.
 */
public final class ShepherdConfig implements HostSettings {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final JsonNode root;
    private final HostConfig host;
    private final Consumer<String> listeningAnnouncer;

    private ShepherdConfig(JsonNode root, Consumer<String> listeningAnnouncer) {
        this.root = root;
        this.host = HostConfig.from(root);
        this.listeningAnnouncer = listeningAnnouncer;
    }

    /**
     * Parses CONFIG text.
     *
     * @throws IOException when it is not a JSON object
     */
    public static ShepherdConfig parse(String json, Consumer<String> listeningAnnouncer) throws IOException {
        JsonNode root = JSON.readTree(json);
        if (root == null || !root.isObject()) {
            throw new IOException("CONFIG is not a JSON object");
        }
        return new ShepherdConfig(root, listeningAnnouncer);
    }

    /** The settings the host acts on. */
    public HostConfig host() {
        return host;
    }

    @Override
    public String string(String key, String fallback) {
        JsonNode node = root.get(key);
        return node == null || node.isNull() ? fallback : node.asText();
    }

    @Override
    public long number(String key, long fallback) {
        JsonNode node = root.get(key);
        if (node == null || node.isNull()) {
            return fallback;
        }
        if (node.isNumber()) {
            return node.asLong();
        }
        try {
            return Long.parseLong(node.asText().trim());
        } catch (NumberFormatException e) {
            return fallback;
        }
    }

    @Override
    public List<String> strings(String key) {
        JsonNode node = root.get(key);
        List<String> out = new ArrayList<>();
        if (node != null && node.isArray()) {
            node.forEach(n -> out.add(n.asText()));
        } else if (node != null && node.isTextual()) {
            out.add(node.asText());
        }
        return List.copyOf(out);
    }

    @Override
    public void listening(String url) {
        listeningAnnouncer.accept(url.startsWith("tcp://") ? "http://" + url.substring("tcp://".length()) : url);
    }
}
