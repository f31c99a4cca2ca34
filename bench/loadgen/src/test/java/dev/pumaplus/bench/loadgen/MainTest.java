// Main: a report names the run the way `bench/run` takes it, so it can be pasted back.
package dev.pumaplus.bench.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class MainTest {
  @Test
  void aScenarioOfBenchScenariosIsNamedByItsNameAndAnyOtherFileByItsPath() {
    assertEquals("bench/run lowrate --rounds 1 --rates 50,200",
        Main.commandLine(new String[] {"run", "bench/scenarios/lowrate.scenario", "--rounds", "1", "--rates", "50,200"}));
    assertEquals("bench/run /tmp/my.scenario --puma8 /work/puma-8.0.2",
        Main.commandLine(new String[] {"run", "/tmp/my.scenario", "--puma8", "/work/puma-8.0.2"}));
  }
}
