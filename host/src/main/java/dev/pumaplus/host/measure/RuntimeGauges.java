/*
 * Reads the host process's and the JVM's own gauges (resident memory, CPU time, open file descriptors,
 * threads, heap, garbage collection) and the resident memory of the worker processes, for /metrics and the
 * dashboard. Beside the request path: read per scrape and once a second per dashboard, never per request.
 */
package dev.pumaplus.host.measure;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Linux's /proc is the source of the process figures: {@code VmRSS} of {@code /proc/PID/status}, the
 * entries of {@code /proc/self/fd}, the soft "Max open files" of {@code /proc/self/limits}, utime + stime of
 * {@code /proc/self/stat}. A figure that cannot be read (no /proc, a worker that just exited) is -1, and the
 * readers leave it out rather than report a made-up value. The JVM's come from its management beans.
 * Stateless; any thread.
 */
public final class RuntimeGauges {

    /** USER_HZ: the unit of utime and stime in /proc/PID/stat on Linux. */
    private static final double CLOCK_TICKS_PER_SECOND = 100;

    private RuntimeGauges() {
    }

    /**
     * One reading.
     *
     * @param residentBytes     the host's resident set size, bytes; -1 when unknown
     * @param cpuSeconds        the host's user + system CPU time since it started, s; -1 when unknown
     * @param openFds           file descriptors the host holds open; -1 when unknown
     * @param maxFds            the host's soft limit on open file descriptors; -1 when unknown or unlimited
     * @param threads           live JVM threads
     * @param heapUsedBytes     heap in use, bytes
     * @param heapCommittedBytes heap the JVM holds from the OS, bytes
     * @param heapMaxBytes      the heap's limit, bytes; -1 when undefined
     * @param collectors        per garbage collector, in the JVM's order
     * @param workerResidentBytes per worker pid asked for, its resident set size in bytes (pids that could not
     *                          be read are absent)
     */
    public record Sample(long residentBytes, double cpuSeconds, long openFds, long maxFds, int threads, long heapUsedBytes,
                  long heapCommittedBytes, long heapMaxBytes, List<Collector> collectors,
                  Map<Long, Long> workerResidentBytes) {
    }

    /**
     * One garbage collector's totals since the JVM started.
     *
     * @param name        the collector's name, e.g. {@code G1 Young Generation}
     * @param collections collections run
     * @param seconds     time spent in them (the JVM reports ms)
     */
    public record Collector(String name, long collections, double seconds) {
    }

    /** Reads everything now, with the resident memory of each of {@code workerPids}. */
    public static Sample sample(List<Long> workerPids) {
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        List<Collector> collectors = new ArrayList<>();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            collectors.add(new Collector(gc.getName(), Math.max(0, gc.getCollectionCount()),
                    Math.max(0, gc.getCollectionTime()) / 1e3));
        }
        Map<Long, Long> workers = new LinkedHashMap<>();
        for (long pid : workerPids) {
            long rss = residentBytes(pid);
            if (rss >= 0) {
                workers.put(pid, rss);
            }
        }
        return new Sample(residentBytes(ProcessHandle.current().pid()), cpuSeconds(), openFds(), maxFds(),
                ManagementFactory.getThreadMXBean().getThreadCount(), heap.getUsed(), heap.getCommitted(),
                heap.getMax(), collectors, workers);
    }

    /** {@code VmRSS} of {@code /proc/PID/status} in bytes; -1 when it cannot be read (gone, or not Linux). */
    static long residentBytes(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.substring(6).replace("kB", "").trim()) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            // unknown: the process is gone, or this is not Linux
        }
        return -1;
    }

    private static double cpuSeconds() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / CLOCK_TICKS_PER_SECOND;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static long openFds() {
        long n = 0;
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path ignored : fds) {
                n++;
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return n - 1; // the directory stream's own descriptor, open while it is listed
    }

    private static long maxFds() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
                if (line.startsWith("Max open files")) {
                    String soft = line.substring("Max open files".length()).trim().split("\\s+")[0];
                    return soft.equals("unlimited") ? -1 : Long.parseLong(soft);
                }
            }
        } catch (IOException | RuntimeException e) {
            // unknown
        }
        return -1;
    }
}
