/*
 * How the host starts a Ruby shepherd (docs/ARCHITECTURE.md, "Runtime contract", step 2): the command line
 * and environment of `<ruby> -I<gem>/lib <gem>/exe/puma-plus-shepherd USER_ARGS`, one process per generation.
 */
package dev.pumaplus.host.lifecycle;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * @param ruby     the Ruby interpreter
 * @param gem      the gem's root directory (lib/, exe/)
 * @param userArgs the user's puma-plus arguments, passed on unchanged
 * @param socket   the link socket the shepherd and its workers dial ({@code PUMA_PLUS_LINK})
 */
public record ShepherdCommand(Path ruby, Path gem, List<String> userArgs, Path socket) {

    /**
     * Starts the shepherd of generation {@code number} ({@code PUMA_PLUS_GENERATION}) with stdio inherited
     * from the host, so its lines and its workers' reach the same stdout and stderr as the host's.
     */
    Process start(int number) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(ruby.toString());
        command.add("-I" + gem.resolve("lib"));
        command.add(gem.resolve("exe").resolve("puma-plus-shepherd").toString());
        command.addAll(userArgs);
        ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
        builder.environment().put("PUMA_PLUS_LINK", socket.toString());
        builder.environment().put("PUMA_PLUS_GENERATION", Integer.toString(number));
        return builder.start();
    }
}
