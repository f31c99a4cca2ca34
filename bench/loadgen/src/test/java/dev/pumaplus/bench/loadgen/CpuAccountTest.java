// CpuAccount: the tree's CPU from a cpuacct cgroup (a process that already exited still counts), the
// host's from its threads' schedstat (each thread from its own start, so one that ends or starts in the
// window cannot make the sum jump), and the tick fallback where no cgroup can be made, which says so.
package dev.pumaplus.bench.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(30)
class CpuAccountTest {
  @TempDir
  Path dir;

  @Test
  void theTreeIsTheGroupsGrowthAndEachHostThreadCountsFromItsReadingAtTheStartOrFromZero() {
    CpuAccount.Snapshot before = new CpuAccount.Snapshot(5_000_000_000L, Map.of(), Map.of(
        1L, new CpuAccount.HostThread(900_000_000L, false),      // event loop
        2L, new CpuAccount.HostThread(2_000_000_000L, true),     // C2, busy during the warm-up
        3L, new CpuAccount.HostThread(700_000_000L, true)));     // C1, stopped by HotSpot inside the window
    CpuAccount.Snapshot after = new CpuAccount.Snapshot(5_030_000_000L, Map.of(), Map.of(
        1L, new CpuAccount.HostThread(910_000_000L, false),
        2L, new CpuAccount.HostThread(2_001_000_000L, true),
        4L, new CpuAccount.HostThread(500_000L, false)));        // started inside the window
    CpuAccount.Usage u = CpuAccount.between(before, after);
    assertEquals(30_000_000L, u.treeNs(), "cpuacct.usage after − before");
    assertEquals(10_000_000L + 1_000_000L + 500_000L, u.hostNs(), "the ended thread takes its window with it, never its lifetime");
    assertEquals(1_000_000L, u.hostJitNs());
    assertEquals(30_000_000L - 11_500_000L, u.rubyNs(), "Ruby = tree − host");
    assertEquals(0, new CpuAccount.Usage(5_000_000L, 5_000_300L, 0).rubyNs(),
        "a tree that is nothing but its host (the null server) has no Ruby, whichever reading came a tick later");
  }

  @Test
  void onTheTickFallbackEachLiveProcessCountsFromItsReadingAtTheStartOrFromZero() {
    CpuAccount.Snapshot before = new CpuAccount.Snapshot(-1, Map.of(100L, 50L, 110L, 7L), Map.of());
    CpuAccount.Snapshot after = new CpuAccount.Snapshot(-1, Map.of(100L, 53L, 110L, 9L, 120L, 1L), Map.of());
    assertEquals((3 + 2 + 1) * CpuAccount.TICK_NS, CpuAccount.between(before, after).treeNs());
    assertEquals(0, CpuAccount.between(before, after).hostNs(), "a server without a host (puma)");
  }

  @Test
  void schedstatsFirstFieldIsTheThreadsNsOnACpuAndHotSpotsCompilerThreadsAreKnownByName() {
    assertEquals(72_481_213L, CpuAccount.parseSchedstatNs("72481213 17560305 269\n"));
    assertTrue(CpuAccount.isJitThread("C2 CompilerThre"));
    assertTrue(CpuAccount.isJitThread("C1 CompilerThre"));
    assertFalse(CpuAccount.isJitThread("epollEventLoopG"));
  }

  @Test
  void aDirectoryThatIsNoCpuacctHierarchyFallsBackToTicksSaysSoAndLeavesNothingBehind() throws Exception {
    try (CpuAccount cpu = CpuAccount.open(dir, "server")) {
      assertFalse(cpu.precise());
      assertTrue(cpu.source().contains("WARNING") && cpu.source().contains("ticks"), cpu.source());
      assertEquals(List.of(), cpu.joinPrefix(), "nothing to join: the server starts as it is");
      long self = ProcessHandle.current().pid();
      CpuAccount.Snapshot s = cpu.snapshot(self, true);
      assertEquals(-1, s.cgroupNs());
      assertTrue(s.hostThreads().values().stream().anyMatch(CpuAccount.HostThread::jit), "this JVM's C1/C2 threads: " + s.hostThreads());
      assertTrue(s.hostThreads().values().stream().mapToLong(CpuAccount.HostThread::ns).sum() > 0);
    }
    try (var left = Files.list(dir)) {
      assertEquals(0, left.count(), "the directory made to try is removed");
    }
  }

  @Test
  void aServerJoinsItsGroupBeforeItForksSoTheCpuOfAChildThatHasExitedStillCounts() throws Exception {
    Path probe = CpuAccount.CPUACCT.resolve("puma-plus-bench-test-" + ProcessHandle.current().pid());
    boolean writable;
    try {
      Files.createDirectory(probe);
      Files.delete(probe);
      writable = true;
    } catch (Exception e) {
      writable = false;
    }
    assumeTrue(writable, "skipped: " + CpuAccount.CPUACCT + " is not a writable cgroup v1 cpuacct hierarchy here (the round "
        + "benchmarks then fall back to /proc ticks, which the other tests cover)");
    CpuAccount cpu = CpuAccount.open(CpuAccount.CPUACCT, "test");
    try {
      assertTrue(cpu.precise(), cpu.source());
      List<String> argv = new ArrayList<>(cpu.joinPrefix());
      // The root forks a busy child and waits for it: by the time the root exits, the child is long gone.
      argv.addAll(List.of("sh", "-c", "sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done'; cat /proc/self/cgroup"));
      Process root = new ProcessBuilder(argv).redirectErrorStream(true).start();
      String output = new String(root.getInputStream().readAllBytes());
      assertEquals(0, root.waitFor(), output);
      assertTrue(output.contains("cpuacct:/puma-plus-bench-"), "the root joined before it ran anything: " + output);
      long ns = cpu.snapshot(root.pid(), false).cgroupNs();
      assertTrue(ns > 20_000_000L, "200,000 shell additions in a child that has exited take more than 20 ms: " + ns + " ns");
    } finally {
      cpu.close();
    }
    try (var groups = Files.list(CpuAccount.CPUACCT)) {
      assertTrue(groups.noneMatch(g -> g.getFileName().toString().startsWith("puma-plus-bench-" + ProcessHandle.current().pid() + "-")),
          "the group is removed once its processes are gone");
    }
  }
}
