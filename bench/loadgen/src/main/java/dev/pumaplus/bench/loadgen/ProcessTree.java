// What a server costs in processes and memory while it runs: every live process of its session (the root
// started under setsid and everything it forked), read from /proc.
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

  /** USER_HZ: the unit of utime and stime in /proc/PID/stat, 100 on every Linux this runs on. */
  static final int TICKS_PER_SECOND = 100;

  private ProcessTree() {}

  /** Live (non-zombie) processes whose session id is {@code sid}. */
  static List<Long> session(long sid) {
    List<Long> found = new ArrayList<>();
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(Path.of("/proc"), p -> p.getFileName().toString().chars().allMatch(Character::isDigit))) {
      for (Path dir : dirs) {
        try {
          String stat = Files.readString(dir.resolve("stat"));
          String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          // after "pid (comm) ": state ppid pgrp session ...
          if (!fields[0].equals("Z") && Long.parseLong(fields[3]) == sid) found.add(Long.parseLong(dir.getFileName().toString()));
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
   * Samples the session now. PSS, not RSS: pages that forked workers share with their parent are divided
   * among them instead of being counted once per process, so a forking server is not charged twice.
   */
  static Sample sample(long sid) {
    List<Long> pids = session(sid);
    long kb = 0;
    long ticks = 0;
    for (long pid : pids) {
      kb += pssKb(pid);
      ticks += cpuTicks(pid);
    }
    return new Sample(System.nanoTime(), pids.size(), kb, ticks);
  }

  private static long cpuTicks(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime (fields 14 and 15 of stat)
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  private static long pssKb(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "smaps_rollup"))) {
        if (line.startsWith("Pss:")) return Long.parseLong(line.replaceAll("\\D+", ""));
      }
    } catch (IOException | RuntimeException e) {
      // gone, or no smaps_rollup: fall back to RSS below
    }
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("\\D+", ""));
      }
    } catch (IOException | RuntimeException e) {
      // gone
    }
    return 0;
  }
}
