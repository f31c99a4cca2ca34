// RoundRunner's readings of what ran: the version each server's boot log names (so a report shows that puma 8
// really was puma 8), whether a host JVM uses its AOT cache, and the puma 8 directory it is given, which must
// hold a built puma.
package dev.pumaplus.bench.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(10)
class RoundRunnerTest {
  @TempDir
  Path dir;

  @Test
  void theVersionComesFromEachServersBootLogAndAServerThatPrintsNoneHasNone() throws Exception {
    Path log = dir.resolve("server.log");
    Files.writeString(log, "[11483] Puma starting in cluster mode...\n[11483] * Puma version: 8.0.2 (\"Into the Arena\")\n");
    assertEquals("8.0.2", RoundRunner.version(log));
    Files.writeString(log, "[9] Puma starting in cluster mode...\n[9] * Puma version: 5.6.5 (ruby 3.1.2-p20) (\"Birdie's Version\")\n");
    assertEquals("5.6.5", RoundRunner.version(log));
    Files.writeString(log, "puma-plus: puma-plus 0.1.0 (ruby 3.1.2p20), shepherd generation 1, pid 13867\n");
    assertEquals("0.1.0", RoundRunner.version(log));
    Files.writeString(log, "null server listening on 41000\n");
    assertEquals("", RoundRunner.version(log));
    assertEquals("", RoundRunner.version(dir.resolve("missing.log")));
  }

  @Test
  void theHostUsesAnAotCacheOnlyWhenTheFileItsCommandLineNamesIsMappedIntoIt() {
    List<String> argv = List.of("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java", "-XX:+UseSerialGC", "-XX:AOTCache=/work/main/gem/vendor/aot/host.aot",
        "-cp", "/work/main/gem/vendor/java/lib/*", "dev.pumaplus.host.boot.Launcher");
    String mapped = """
        7c001000-7e227000 rw-p 00001000 fe:00 5392523                            /work/main/gem/vendor/aot/host.aot
        7fec39291000-7fec392ff000 r--p 00000000 fe:00 1234                       /usr/lib/jvm/temurin-25-jdk-amd64/lib/server/libjvm.so
        """;
    String notMapped = "7fec39291000-7fec392ff000 r--p 00000000 fe:00 1234                       /usr/lib/jvm/temurin-25-jdk-amd64/lib/server/libjvm.so\n";
    assertEquals("AOT cache in use", RoundRunner.aotStatus(argv, mapped), "a maps line of the cache file, as a JDK 25 host shows it");
    assertEquals("AOT cache given, not in use", RoundRunner.aotStatus(argv, notMapped), "JAVA_TOOL_OPTIONS=-XX:AOTMode=off: given, ignored");
    assertEquals("no AOT cache", RoundRunner.aotStatus(List.of("java", "-cp", "x", "Main"), mapped), "the launcher passed none");
  }

  @Test
  void aPuma8DirectoryWithoutItsCompiledParserIsRefusedWithWhereToReadHowToBuildIt() throws Exception {
    Files.createDirectories(dir.resolve("bin"));
    Files.writeString(dir.resolve("bin/puma"), "#!/usr/bin/env ruby\n");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RoundRunner.checkPuma8(dir));
    assertTrue(e.getMessage().contains("lib/puma/puma_http11.so") && e.getMessage().contains("docs/BENCHMARKS.md"), e.getMessage());
    Files.createDirectories(dir.resolve("lib/puma"));
    Files.writeString(dir.resolve("lib/puma/puma_http11.so"), "");
    RoundRunner.checkPuma8(dir);
  }
}
