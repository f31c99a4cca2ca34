// CapacityRunner's accounting on fixed process readings: each process's CPU over the window goes to its
// role by its depth below the root (puma-plus: host, shepherd, workers; puma: master, workers).
package dev.pumaplus.bench.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class CapacityRunnerTest {
  @Test
  void pumaPlusCpuIsSplitIntoHostShepherdAndWorkersAndAWorkerBornInTheWindowCountsFromZero() {
    List<ProcessTree.Proc> before = List.of(
        new ProcessTree.Proc(100, 1, 1_000, 0), new ProcessTree.Proc(110, 100, 300, 0), new ProcessTree.Proc(120, 110, 50, 0));
    List<ProcessTree.Proc> after = List.of(
        new ProcessTree.Proc(100, 1, 1_400, 0), new ProcessTree.Proc(110, 100, 301, 0), new ProcessTree.Proc(120, 110, 250, 0),
        new ProcessTree.Proc(121, 110, 40, 0));
    Map<String, Long> ticks = CapacityRunner.roleTicks("puma-plus", 100, before, after);
    assertEquals(List.of("host", "shepherd", "workers"), List.copyOf(ticks.keySet()));
    assertEquals(Map.of("host", 400L, "shepherd", 1L, "workers", 200L + 40L), ticks);
  }

  @Test
  void pumaCpuIsSplitIntoMasterAndWorkersAndPssIsSummedTheSameWay() {
    List<ProcessTree.Proc> procs = List.of(
        new ProcessTree.Proc(200, 1, 10, 30_000), new ProcessTree.Proc(201, 200, 500, 12_000), new ProcessTree.Proc(202, 200, 700, 13_000));
    assertEquals(Map.of("master", 0L, "workers", 0L), CapacityRunner.roleTicks("puma", 200, procs, procs));
    assertEquals(Map.of("master", 30_000L, "workers", 25_000L), CapacityRunner.rolePssKb("puma", 200, procs));
    assertEquals("server", CapacityRunner.role("null", 0));
  }
}
