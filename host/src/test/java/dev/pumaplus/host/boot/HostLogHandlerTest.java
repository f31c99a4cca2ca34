/*
 * The one logging path: System.Logger and Netty's internal logger both end in HostLogHandler, info on
 * stdout and warnings on stderr (as the host's println lines went), in the one format chosen.
 */
package dev.pumaplus.host.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pumaplus.host.config.LogFormat;
import io.netty.util.internal.logging.InternalLoggerFactory;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class HostLogHandlerTest {

    @Test
    void infoGoesToStdoutWarningsToStderrNettyIncludedInTheChosenFormat() throws Exception {
        PrintStream savedOut = System.out;
        PrintStream savedErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try {
            HostLogHandler handler = HostLogHandler.install();
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            System.getLogger(Launcher.class.getName()).log(System.Logger.Level.INFO, "ready, 2 slots");
            System.getLogger(Launcher.class.getName()).log(System.Logger.Level.DEBUG, "below the threshold");
            InternalLoggerFactory.getInstance("io.netty.test").warn("a netty warning");
            handler.setFormatter(LogFormat.JSON);
            System.getLogger(Launcher.class.getName()).log(System.Logger.Level.ERROR, "it failed");
        } finally {
            System.setOut(savedOut);
            System.setErr(savedErr);
        }
        assertEquals("puma-plus: ready, 2 slots\n", out.toString(StandardCharsets.UTF_8));
        String[] errLines = err.toString(StandardCharsets.UTF_8).split("\n");
        assertEquals(2, errLines.length, err.toString(StandardCharsets.UTF_8));
        assertEquals("puma-plus: io.netty.test WARNING: a netty warning", errLines[0]);
        assertEquals("it failed", new ObjectMapper().readTree(errLines[1]).get("message").asText());
    }
}
