/*
 * The state file `puma-plus ctl -S` reads: written by a JSON encoder, so any token or path reads back
 * exactly, in Java and (test/integration/state_file_test.rb) in the real ctl's YAML loader.
 */
package dev.pumaplus.host.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pumaplus.host.config.HostConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(10)
class ProcessFilesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @Test
    void tokenWithQuoteBackslashAndNewlineReadsBackExactly() throws Exception {
        String token = "a\"b\\c\nd";
        JsonNode state = JSON.readTree(ProcessFiles.stateDocument(42, Path.of("/srv/a \"b\""), "tcp://127.0.0.1:9", token));
        assertEquals(42, state.get("pid").asLong());
        assertEquals("/srv/a \"b\"", state.get("running_from").asText());
        assertEquals("tcp://127.0.0.1:9", state.get("control_url").asText());
        assertEquals(token, state.get("control_auth_token").asText());
    }

    @Test
    void withoutAControlAppTheStateNamesNoUrlAndNoToken() throws Exception {
        JsonNode state = JSON.readTree(ProcessFiles.stateDocument(42, Path.of("/srv"), null, null));
        assertFalse(state.has("control_url"));
        assertFalse(state.has("control_auth_token"));
    }

    @Test
    void pidfileAndStateFileAreWrittenThenDeleted() throws Exception {
        Path pid = tmp.resolve("run/p.pid");
        Path state = tmp.resolve("run/s.state");
        HostConfig config = HostConfig.from(JSON.readTree(JSON.writeValueAsString(java.util.Map.of(
                "pidfile", pid.toString(), "state_path", state.toString()))));
        ProcessFiles files = ProcessFiles.open(config);
        files.writeState("tcp://127.0.0.1:9", "t");
        assertEquals(ProcessHandle.current().pid() + "\n", Files.readString(pid));
        assertEquals("t", JSON.readTree(Files.readString(state)).get("control_auth_token").asText());
        files.delete();
        assertTrue(Files.notExists(pid) && Files.notExists(state), "both files are removed at stop");
    }

    @Test
    void theStateFileHoldingTheTokenIsReadableByItsOwnerAlone() throws Exception {
        Path state = tmp.resolve("s.state");
        Files.writeString(state, "old");
        Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rw-r--r--"));
        HostConfig config = HostConfig.from(JSON.readTree(JSON.writeValueAsString(java.util.Map.of(
                "state_path", state.toString()))));
        ProcessFiles.open(config).writeState("tcp://127.0.0.1:9", "t");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(state)),
                "an existing world-readable file is narrowed before the token is written");
        Path fresh = tmp.resolve("fresh/s.state");
        HostConfig freshConfig = HostConfig.from(JSON.readTree(JSON.writeValueAsString(java.util.Map.of(
                "state_path", fresh.toString()))));
        ProcessFiles.open(freshConfig).writeState("tcp://127.0.0.1:9", "t");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(fresh)));
    }
}
