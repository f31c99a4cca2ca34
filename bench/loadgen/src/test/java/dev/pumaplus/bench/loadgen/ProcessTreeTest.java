// ProcessTree's readings of /proc on fixed text: the stat fields behind CPU per request, the PSS line of
// smaps_rollup behind memory, and the depth below the root that gives each process its role.
package dev.pumaplus.bench.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class ProcessTreeTest {
  @Test
  void statIsReadAfterTheLastParenthesisSoACommandNameWithSpacesAndParenthesesCannotShiftTheFields() {
    String stat = "4242 (puma: cluster worker 0: 4200 (app) x) S 4200 4200 4100 0 -1 4194560 1000 0 0 0 250 37 5 6 20 0 3 0 "
        + "12345 300000000 12000 18446744073709551615 1 1 0 0 0 0 0 4096 17509 0 0 0 17 0 0 0 0 0 0\n";
    ProcessTree.Stat parsed = ProcessTree.parseStat(stat);
    assertEquals('S', parsed.state());
    assertEquals(4200, parsed.ppid());
    assertEquals(4100, parsed.session());
    assertEquals(250 + 37, parsed.cpuTicks(), "utime + stime, without the children's cutime/cstime");
    assertEquals(5 + 6, parsed.childrenCpuTicks(), "cutime + cstime: the reaped children's");
  }

  @Test
  void aReapedChildsCpuIsCountedInThisJvmsChildrenTicks() throws Exception {
    long before = ProcessTree.reapedChildrenCpuTicks();
    Process burn = new ProcessBuilder("sh", "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done").start();
    assertEquals(0, burn.waitFor());
    assertTrue(ProcessTree.reapedChildrenCpuTicks() > before, "a child that ran a busy loop for a while used some ticks");
  }

  @Test
  void aJvmsJitCompilerThreadsAreCountedAndAProcessWithoutThemHasNone() throws Exception {
    long self = ProcessHandle.current().pid();
    Process shell = new ProcessBuilder("sleep", "5").start();
    try {
      List<ProcessTree.Proc> jit = ProcessTree.jitCompilers(List.of(new ProcessTree.Proc(self, 1, 999_999, 0),
          new ProcessTree.Proc(shell.pid(), self, 999_999, 0)));
      // This JVM has loaded and run JUnit: its compiler threads have used more than a 10 ms tick, and far
      // less than the whole process.
      assertTrue(jit.get(0).cpuTicks() > 0 && jit.get(0).cpuTicks() < 999_999, "this JVM's C1/C2 ticks: " + jit.get(0));
      assertEquals(0, jit.get(1).cpuTicks(), "sleep has no compiler threads");
    } finally {
      shell.destroy();
    }
  }

  @Test
  void pssIsThePssLineOfSmapsRollupNotPssAnonOrRss() {
    String rollup = """
        55d7c3a00000-7ffd4b7f6000 ---p 00000000 00:00 0                          [rollup]
        Rss:               48236 kB
        Pss_Anon:          14000 kB
        Pss:               21876 kB
        Pss_Dirty:         15000 kB
        Pss_File:           7876 kB
        Shared_Clean:      30000 kB
        """;
    assertEquals(21876, ProcessTree.parsePssKb(rollup));
    assertEquals(-1, ProcessTree.parsePssKb("Rss: 10 kB\n"));
  }

  @Test
  void depthCountsGenerationsBelowTheRootAndLeavesOutProcessesNotDescendedFromIt() {
    List<ProcessTree.Proc> procs = List.of(
        new ProcessTree.Proc(100, 1, 0, 0),     // host (the session's root)
        new ProcessTree.Proc(110, 100, 0, 0),   // shepherd
        new ProcessTree.Proc(120, 110, 0, 0),   // worker
        new ProcessTree.Proc(121, 110, 0, 0),   // worker
        new ProcessTree.Proc(130, 1, 0, 0));    // reparented to init: not below the root
    assertEquals(Map.of(100L, 0, 110L, 1, 120L, 2, 121L, 2), ProcessTree.depths(procs, 100));
  }

  @Test
  void rssIsTheVmRssLineOfStatusAndAProcessWithoutOneHasNone() {
    String status = """
        Name:\tjava
        VmPeak:\t 2616604 kB
        VmHWM:\t  109000 kB
        VmRSS:\t   85312 kB
        RssAnon:\t   60000 kB
        """;
    assertEquals(85_312, ProcessTree.parseRssKb(status));
    assertEquals(-1, ProcessTree.parseRssKb("Name:\tkthreadd\nState:\tS (sleeping)\n"), "a kernel thread has no VmRSS line");
  }
}
