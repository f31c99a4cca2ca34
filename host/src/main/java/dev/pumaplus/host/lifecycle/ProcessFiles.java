/*
 * The files the host process keeps outside its private directory, from the first generation's CONFIG: the
 * stdout/stderr redirect (stdout_redirect), the pidfile (the process to signal) and puma's state file, which
 * `puma-plus ctl -S` reads to find the control app (gem/lib/puma_plus/control_client.rb).
 */
package dev.pumaplus.host.lifecycle;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pumaplus.host.config.HostConfig;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The state file is one JSON object, which is also a YAML document: ctl loads it with Ruby's
 * {@code YAML.safe_load}, and a JSON encoder escapes every character a token or path may hold ({@code "},
 * {@code \}, newlines) in a form YAML's double-quoted scalars read back. Written once the control app is
 * bound (its real port), readable by its owner alone (0600), since the token in it can stop the server;
 * both files are deleted at stop. Used by the launcher's main thread, and
 * {@link #reopenOutput} by the SIGHUP handler's.
 */
public final class ProcessFiles {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private final Path pidfile;
    private final Path statePath;
    private final Path stdoutPath;
    private final Path stderrPath;
    /** The streams on the redirect files this class opened last (null: none); closed when replaced. */
    private PrintStream out;
    private PrintStream err;

    private ProcessFiles(HostConfig config) {
        this.pidfile = config.pidfile();
        this.statePath = config.statePath();
        this.stdoutPath = config.stdoutPath();
        this.stderrPath = config.stderrPath();
    }

    /**
     * Points stdout and stderr at {@code config}'s redirect files (the shepherd opened, and unless appending
     * truncated, them before it sent CONFIG, so the host appends) and writes the pidfile.
     */
    public static ProcessFiles open(HostConfig config) throws IOException {
        ProcessFiles files = new ProcessFiles(config);
        files.reopenOutput();
        if (files.pidfile != null) {
            write(files.pidfile, ProcessHandle.current().pid() + "\n");
        }
        return files;
    }

    /** True when stdout_redirect names a file: SIGHUP then reopens it (puma's), else it stops the server. */
    public boolean redirected() {
        return stdoutPath != null || stderrPath != null;
    }

    /**
     * Points stdout and stderr at the redirect files' paths again, appending (after a log rotation moved
     * them away, a new file at each path), and closes what they pointed at before.
     */
    public void reopenOutput() throws IOException {
        out = reopen(stdoutPath, out, System::setOut);
        err = reopen(stderrPath, err, System::setErr);
    }

    /**
     * A new appending stream on {@code path}, installed before {@code previous} is closed so no line goes to
     * a closed stream; {@code previous} as it is when {@code path} is null (that output is not redirected).
     */
    private static PrintStream reopen(Path path, PrintStream previous, Consumer<PrintStream> install)
            throws IOException {
        if (path == null) {
            return previous;
        }
        PrintStream next = new PrintStream(new FileOutputStream(path.toFile(), true), true);
        install.accept(next);
        if (previous != null) {
            previous.close();
        }
        return next;
    }

    /**
     * Writes the state file, if one is configured: the control app's URL (or null for none) and token (or
     * null for none), owner-only (0600) from its first byte: created empty with that mode, or an old file
     * set to it, before the token is written.
     */
    public void writeState(String controlUrl, String controlToken) throws IOException {
        if (statePath != null) {
            Files.createDirectories(statePath.toAbsolutePath().getParent());
            if (!Files.exists(statePath, LinkOption.NOFOLLOW_LINKS)) {
                Files.createFile(statePath, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            }
            Files.setPosixFilePermissions(statePath, OWNER_ONLY);
            write(statePath, stateDocument(ProcessHandle.current().pid(), Path.of("").toAbsolutePath(), controlUrl,
                    controlToken));
        }
    }

    /**
     * The state file's text: {@code pid}, {@code running_from}, and {@code control_url} and
     * {@code control_auth_token} when not null (puma's keys). Pure.
     */
    static String stateDocument(long pid, Path runningFrom, String controlUrl, String controlToken) {
        Map<String, Object> state = new LinkedHashMap<>();
        state.put("pid", pid);
        state.put("running_from", runningFrom.toString());
        if (controlUrl != null) {
            state.put("control_url", controlUrl);
        }
        if (controlToken != null) {
            state.put("control_auth_token", controlToken);
        }
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(state) + "\n";
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e); // strings and a number always encode
        }
    }

    /** Deletes the pidfile and the state file; a file already gone is fine (they are advisory). */
    public void delete() {
        for (Path path : new Path[] {pidfile, statePath}) {
            try {
                if (path != null) {
                    Files.deleteIfExists(path);
                }
            } catch (IOException ignored) {
                // advisory files: nothing to do
            }
        }
    }

    private static void write(Path path, String text) throws IOException {
        Files.createDirectories(path.toAbsolutePath().getParent());
        Files.writeString(path, text);
    }
}
