// ProcessTree's readings of /proc on fixed text: the stat fields behind the tick fallback and the client's
// CPU, the PSS line of smaps_rollup behind the tree's memory and the VmRSS line behind the host's.
package dev.pumaplus.bench.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
