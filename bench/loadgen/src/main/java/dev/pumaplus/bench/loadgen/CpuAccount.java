// The CPU one server under test uses, in nanoseconds, read by the round runner around each measured cell:
// its whole process tree from a cgroup v1 cpuacct group the server's root joins before it forks anything
// (so a process that exited, or was born, inside the window counts), and its Java host (the root of
// puma-plus's tree) from the schedstat of the host's threads. Ruby = tree − host.
package dev.pumaplus.bench.loadgen;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One per server process; owned by the runner's thread. Where no cgroup can be made (no cgroup v1 cpuacct
 * hierarchy, no permission to write it: a CI container), the tree falls back to utime + stime of its live
 * processes from /proc, whole clock ticks of 10 ms, too coarse for a server at tens of requests per
 * second: {@link #precise()} says which, and {@link #source()} says it in words for the report.
 *
 * <p>Precision: cpuacct.usage and schedstat's first field are the scheduler's own sum_exec_runtime, in ns;
 * the kernel brings a running task's sum up to date at each tick, so a reading lags by at most one tick of
 * whatever runs at that instant. A host thread that ends inside a window takes its CPU in that window with
 * it (HotSpot stops idle compiler threads; the host's one C1 and one C2 thread stay).
 */
final class CpuAccount implements AutoCloseable {
  /** Where cgroup v1 mounts the cpuacct controller. */
  static final Path CPUACCT = Path.of("/sys/fs/cgroup/cpuacct");
  /** One clock tick of utime and stime, ns. */
  static final long TICK_NS = 1_000_000_000L / ProcessTree.TICKS_PER_SECOND;

  private static final AtomicInteger GROUPS = new AtomicInteger();

  /** What a window cost: the whole tree, the host (0 without one), and of the host its JIT compiler threads. */
  record Usage(long treeNs, long hostNs, long hostJitNs) {
    /**
     * Everything but the host: the Ruby processes (for puma, the whole tree). Never below 0: the two readings
     * can be up to one tick of a running thread apart, which shows when the tree is nothing but the host.
     */
    long rubyNs() {
      return Math.max(0, treeNs - hostNs);
    }
  }

  /** One thread of the host at one moment: CPU so far (ns, schedstat), and whether it is a JIT compiler thread. */
  record HostThread(long ns, boolean jit) {}

  /**
   * Everything read at one moment. {@code cgroupNs}: the group's cpuacct.usage, or -1 when the tree is read
   * from ticks instead ({@code processTicks}: each live process's utime + stime by pid). {@code hostThreads}
   * by thread id: empty when the server has no host.
   */
  record Snapshot(long cgroupNs, Map<Long, Long> processTicks, Map<Long, HostThread> hostThreads) {}

  private final Path group;
  private final String source;

  private CpuAccount(Path group, String source) {
    this.group = group;
    this.source = source;
  }

  /**
   * A fresh cgroup named after {@code name} under {@code cpuacctRoot} ({@link #CPUACCT} outside tests), or,
   * when it cannot be made or is not a cpuacct group (no cpuacct.usage appeared in it), the tick fallback.
   */
  static CpuAccount open(Path cpuacctRoot, String name) {
    Path group = cpuacctRoot.resolve("puma-plus-bench-" + ProcessHandle.current().pid() + "-" + GROUPS.incrementAndGet() + "-" + name);
    try {
      Files.createDirectory(group);
    } catch (IOException | UnsupportedOperationException e) {
      return fallback("no cgroup " + group + " (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
    }
    if (!Files.isRegularFile(group.resolve("cpuacct.usage"))) {
      removeQuietly(group);
      return fallback(cpuacctRoot + " is not a cgroup v1 cpuacct hierarchy");
    }
    return new CpuAccount(group, "cgroup v1 cpuacct (" + cpuacctRoot + "), ns");
  }

  private static CpuAccount fallback(String why) {
    return new CpuAccount(null, "/proc ticks of the live processes (10 ms): " + why
        + "; WARNING: too coarse for CPU per request below a few hundred requests per second");
  }

  /** True when the tree is read from a cgroup (ns, exited processes included), false on the tick fallback. */
  boolean precise() {
    return group != null;
  }

  /** Where the tree's CPU comes from, for the report. */
  String source() {
    return source;
  }

  /**
   * The argv to put before the server's own, so that its root joins the group and then execs the rest: the
   * join happens before the server can fork, and the root keeps its pid. Empty on the fallback.
   */
  List<String> joinPrefix() {
    if (group == null) return List.of();
    return List.of("sh", "-c", "echo $$ > '" + group.resolve("cgroup.procs") + "' && exec \"$@\"", "cgroup-join");
  }

  /** Reads the tree (session {@code rootPid}) and, when {@code rootIsHost}, the threads of the root. */
  Snapshot snapshot(long rootPid, boolean rootIsHost) throws IOException {
    long cgroupNs = -1;
    Map<Long, Long> ticks = Map.of();
    if (group != null) {
      cgroupNs = Long.parseLong(Files.readString(group.resolve("cpuacct.usage")).trim());
    } else {
      ticks = new HashMap<>();
      for (ProcessTree.Proc p : ProcessTree.cpu(rootPid)) ticks.put(p.pid(), p.cpuTicks());
    }
    return new Snapshot(cgroupNs, ticks, rootIsHost ? hostThreads(rootPid) : Map.of());
  }

  /**
   * What the window between two snapshots cost. The host: each thread alive at the end, from its reading at
   * the start (from 0 if it started inside the window). The tree on the fallback: the same per process.
   */
  static Usage between(Snapshot before, Snapshot after) {
    long tree;
    if (after.cgroupNs() >= 0) {
      tree = after.cgroupNs() - before.cgroupNs();
    } else {
      long ticks = 0;
      for (Map.Entry<Long, Long> p : after.processTicks().entrySet()) {
        ticks += p.getValue() - before.processTicks().getOrDefault(p.getKey(), 0L);
      }
      tree = ticks * TICK_NS;
    }
    long host = 0;
    long jit = 0;
    for (Map.Entry<Long, HostThread> t : after.hostThreads().entrySet()) {
      HostThread start = before.hostThreads().get(t.getKey());
      long ns = t.getValue().ns() - (start == null ? 0 : start.ns());
      host += ns;
      if (t.getValue().jit()) jit += ns;
    }
    return new Usage(tree, host, jit);
  }

  /** The first field of /proc/PID/task/TID/schedstat: the thread's time on a CPU so far, ns. */
  static long parseSchedstatNs(String schedstat) {
    return Long.parseLong(schedstat.trim().split("\\s+")[0]);
  }

  /** HotSpot's compiler threads are named "C1 CompilerThread0", "C2 CompilerThread1", ... (comm cuts at 15). */
  static boolean isJitThread(String comm) {
    return comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre");
  }

  private static Map<Long, HostThread> hostThreads(long pid) throws IOException {
    Map<Long, HostThread> threads = new HashMap<>();
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path task : tasks) {
        try {
          threads.put(Long.parseLong(task.getFileName().toString()),
              new HostThread(parseSchedstatNs(Files.readString(task.resolve("schedstat"))), isJitThread(Files.readString(task.resolve("comm")))));
        } catch (IOException | RuntimeException e) {
          // the thread ended while we looked
        }
      }
    }
    return threads;
  }

  /**
   * Removes the group. Call it once the server's processes are gone: a group with a task left cannot be
   * removed, so this waits up to 5 s for the last ones to be reaped, then leaves it with a warning.
   */
  @Override
  public void close() throws InterruptedException {
    if (group == null) return;
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (true) {
      try {
        Files.deleteIfExists(group);
        return;
      } catch (IOException e) {
        if (System.nanoTime() > deadline) {
          System.out.println("  WARNING: could not remove " + group + ": " + e.getMessage());
          return;
        }
        Thread.sleep(100);
      }
    }
  }

  private static void removeQuietly(Path dir) {
    try {
      Files.deleteIfExists(dir);
    } catch (IOException e) {
      // a plain directory we just made: nothing else can be in it
    }
  }
}
