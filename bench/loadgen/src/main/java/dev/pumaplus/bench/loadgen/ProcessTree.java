// What a server costs in processes, memory and CPU while it runs: every live process of its session (the
// root started under setsid and everything it forked), read from /proc.
package dev.pumaplus.bench.loadgen;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Stateless; safe from any thread. */
final class ProcessTree {
  /**
   * One sample: how many processes, their summed proportional set size (PSS) in kB, and the CPU time they
   * have used so far (user + system, clock ticks of {@link #TICKS_PER_SECOND}; a process that has exited
   * takes its ticks with it).
   */
  record Sample(long atNanos, int processes, long pssKb, long cpuTicks) {}

  /** One process of the session at one moment: its parent, CPU used so far (ticks) and PSS (kB). */
  record Proc(long pid, long ppid, long cpuTicks, long pssKb) {}

  /**
   * The fields of /proc/PID/stat this class reads. {@code childrenCpuTicks}: what the process's children
   * that it has waited for used (cutime + cstime), so a child's CPU is known once it has been reaped.
   */
  record Stat(char state, long ppid, long session, long cpuTicks, long childrenCpuTicks) {}

  /** USER_HZ: the unit of utime and stime in /proc/PID/stat, 100 on every Linux this runs on. */
  static final int TICKS_PER_SECOND = 100;

  private ProcessTree() {}

  /** Live (non-zombie) processes whose session id is {@code sid}. */
  static List<Long> session(long sid) {
    return processes(sid, false).stream().map(Proc::pid).toList();
  }

  /**
   * Samples the session now. PSS, not RSS: pages that forked workers share with their parent are divided
   * among them instead of being counted once per process, so a forking server is not charged twice.
   */
  static Sample sample(long sid) {
    List<Proc> procs = processes(sid, true);
    long kb = 0;
    long ticks = 0;
    for (Proc p : procs) {
      kb += p.pssKb();
      ticks += p.cpuTicks();
    }
    return new Sample(System.nanoTime(), procs.size(), kb, ticks);
  }

  /** Every live process of the session with its parent, CPU ticks and PSS, read now. */
  static List<Proc> processes(long sid) {
    return processes(sid, true);
  }

  /** The same without PSS (0): a read of /proc/PID/stat per process, for CPU alone. */
  static List<Proc> cpu(long sid) {
    return processes(sid, false);
  }

  private static List<Proc> processes(long sid, boolean withMemory) {
    List<Proc> found = new ArrayList<>();
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(Path.of("/proc"), p -> p.getFileName().toString().chars().allMatch(Character::isDigit))) {
      for (Path dir : dirs) {
        try {
          Stat stat = parseStat(Files.readString(dir.resolve("stat")));
          if (stat.state() == 'Z' || stat.session() != sid) continue;
          long pid = Long.parseLong(dir.getFileName().toString());
          found.add(new Proc(pid, stat.ppid(), stat.cpuTicks(), withMemory ? pssKb(pid) : 0));
        } catch (IOException | RuntimeException e) {
          // the process ended while we looked
        }
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return found;
  }

  /**
   * Parses /proc/PID/stat. The command name (field 2) is in parentheses and may itself hold spaces and
   * parentheses, so the fields are counted from the LAST ')': state ppid pgrp session ... utime stime
   * cutime cstime (fields 3, 4, 6 and 14 to 17 of proc(5)).
   */
  static Stat parseStat(String stat) {
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
    return new Stat(fields[0].charAt(0), Long.parseLong(fields[1]), Long.parseLong(fields[3]),
        Long.parseLong(fields[11]) + Long.parseLong(fields[12]), Long.parseLong(fields[13]) + Long.parseLong(fields[14]));
  }

  /** CPU ticks used so far by the children this JVM has reaped (a finished wrk run among them). */
  static long reapedChildrenCpuTicks() throws IOException {
    return parseStat(Files.readString(Path.of("/proc/self/stat"))).childrenCpuTicks();
  }

  /** The {@code Pss:} line of /proc/PID/smaps_rollup in kB, or -1 when there is none. */
  static long parsePssKb(String smapsRollup) {
    for (String line : smapsRollup.split("\n")) {
      if (line.startsWith("Pss:")) return Long.parseLong(line.replaceAll("\\D+", ""));
    }
    return -1;
  }

  /**
   * Each process's depth below {@code root} (the root is 0, its children 1, ...), following parent ids
   * within {@code procs}; a process whose chain does not reach the root is left out.
   */
  static Map<Long, Integer> depths(List<Proc> procs, long root) {
    Map<Long, Long> parent = new HashMap<>();
    for (Proc p : procs) parent.put(p.pid(), p.ppid());
    Map<Long, Integer> depths = new HashMap<>();
    for (Proc p : procs) {
      int depth = 0;
      long at = p.pid();
      while (at != root && parent.containsKey(at) && depth <= procs.size()) {
        at = parent.get(at);
        depth++;
      }
      if (at == root) depths.put(p.pid(), depth);
    }
    return depths;
  }

  /**
   * The same processes with, as their CPU ticks, only what their JIT compiler threads (HotSpot's
   * {@code C1 CompilerThread*} and {@code C2 CompilerThread*}) have used so far: 0 for a process that has none.
   * A JVM compiles its hot code in the first seconds under load, and that CPU is not the cost of a request.
   * A compiler thread the JVM stops takes its ticks with it, so over a window this is a floor.
   */
  static List<Proc> jitCompilers(List<Proc> procs) {
    List<Proc> jit = new ArrayList<>(procs.size());
    for (Proc p : procs) {
      long ticks = 0;
      try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(p.pid()), "task"))) {
        for (Path task : tasks) {
          try {
            String comm = Files.readString(task.resolve("comm"));
            if (comm.startsWith("C1 Compiler") || comm.startsWith("C2 Compiler")) {
              ticks += parseStat(Files.readString(task.resolve("stat"))).cpuTicks();
            }
          } catch (IOException | RuntimeException e) {
            // the thread ended while we looked
          }
        }
      } catch (IOException e) {
        // the process ended while we looked
      }
      jit.add(new Proc(p.pid(), p.ppid(), ticks, p.pssKb()));
    }
    return jit;
  }

  /** The {@code VmRSS:} line of /proc/PID/status in kB: the resident memory of one process (the host). */
  static long rssKb(long pid) throws IOException {
    return parseRssKb(Files.readString(Path.of("/proc", Long.toString(pid), "status")));
  }

  /** The {@code VmRSS:} line of a /proc/PID/status in kB, or -1 when there is none (a kernel thread, a zombie). */
  static long parseRssKb(String status) {
    for (String line : status.split("\n")) {
      if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("\\D+", ""));
    }
    return -1;
  }

  private static long pssKb(long pid) {
    try {
      long kb = parsePssKb(Files.readString(Path.of("/proc", Long.toString(pid), "smaps_rollup")));
      if (kb >= 0) return kb;
    } catch (IOException | RuntimeException e) {
      // gone, or no smaps_rollup: fall back to RSS below
    }
    try {
      return Math.max(0, rssKb(pid));
    } catch (IOException | RuntimeException e) {
      return 0; // gone
    }
  }
}
