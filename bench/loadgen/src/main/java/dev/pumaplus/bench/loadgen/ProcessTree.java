// What a server costs in processes, memory and CPU while it runs: every live process of its session (the
// root started under setsid and everything it forked), read from /proc.
package dev.pumaplus.bench.loadgen;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Stateless; safe from any thread. */
final class ProcessTree {
  /**
   * One sample: how many processes, their summed proportional set size (PSS) in kB, and the CPU time they
   * have used so far (user + system, clock ticks of {@link #TICKS_PER_SECOND}; a process that has exited
   * takes its ticks with it).
   */
  record Sample(long atNanos, int processes, long pssKb, long cpuTicks) {}

  /** One process of the session at one moment: CPU used so far (ticks) and PSS (kB). */
  record Proc(long pid, long cpuTicks, long pssKb) {}

  /**
   * The fields of /proc/PID/stat this class reads. {@code childrenCpuTicks}: what the process's children
   * that it has waited for used (cutime + cstime), so a child's CPU is known once it has been reaped.
   */
  record Stat(char state, long session, long cpuTicks, long childrenCpuTicks) {}

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
          found.add(new Proc(pid, stat.cpuTicks(), withMemory ? pssKb(pid) : 0));
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
   * cutime cstime (fields 3, 6 and 14 to 17 of proc(5)).
   */
  static Stat parseStat(String stat) {
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
    return new Stat(fields[0].charAt(0), Long.parseLong(fields[3]),
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
