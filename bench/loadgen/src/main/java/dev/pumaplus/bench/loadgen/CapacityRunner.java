// Runs the capacity benchmark end to end: for each repetition, each server in the file's order is started
// alone on the servers' CPU, its idle memory read, then for each connection mode warmed up and measured
// under wrk at full closed-loop speed, its process tree read from /proc around the measured window; then
// the report is written (CapacityReport).
package dev.pumaplus.bench.loadgen;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Single-threaded: the caller's thread waits on each wrk run. */
final class CapacityRunner {
  /**
   * One measured run of one server in one connection mode. CPU in ticks of {@link ProcessTree#TICKS_PER_SECOND}
   * used by the session's processes over the measured window (a process that exited inside the window takes
   * its ticks with it), by role in {@link #roles} order; PSS in kB, of the tree and by role: {@code idle} after
   * the server answered /health and its process count settled, before any load; {@code loaded} as the
   * measured run ended.
   * {@code tcpOpens}: TCP connections opened on the machine during the measured window; {@code clientTicks}:
   * the CPU wrk used in it. {@code roleJitTicks}: of each role's ticks, those of its JIT compiler threads
   * (a JVM still compiling its hot code in the window charges that to its requests).
   */
  record Run(Scenario.ServerSpec server, CapacityScenario.Connection mode, int rep, Wrk.Result wrk, long treeTicks,
      Map<String, Long> roleTicks, Map<String, Long> roleJitTicks, long pssIdleKb, long pssLoadedKb, Map<String, Long> rolePssIdleKb,
      Map<String, Long> rolePssLoadedKb, int processes,
      long tcpOpens, long clientTicks, String loadBefore, String loadAfter) {

    /** Tree CPU per completed request, µs. */
    double cpuPerRequestUs() {
      return perRequestUs(treeTicks);
    }

    /** One role's CPU per completed request, µs. */
    double cpuPerRequestUs(String role) {
      return perRequestUs(roleTicks.getOrDefault(role, 0L));
    }

    /** Of {@link #cpuPerRequestUs(String)}, what the role's JIT compiler threads used, µs. */
    double jitPerRequestUs(String role) {
      return perRequestUs(roleJitTicks.getOrDefault(role, 0L));
    }

    /** wrk's CPU over its measured run, percent of its one core: near 100, the client is the limit. */
    double clientCpuPercent() {
      return wrk.durationUs() == 0 ? Double.NaN : 100.0 * clientTicks / ProcessTree.TICKS_PER_SECOND / (wrk.durationUs() / 1e6);
    }

    double opensPerRequest() {
      return wrk.requests() == 0 ? Double.NaN : (double) tcpOpens / wrk.requests();
    }

    private double perRequestUs(long ticks) {
      return wrk.requests() == 0 ? Double.NaN : ticks * 1e6 / ProcessTree.TICKS_PER_SECOND / wrk.requests();
    }
  }

  private static final long SETTLE_NS = TimeUnit.SECONDS.toNanos(1);
  private static final long SETTLE_LIMIT_NS = TimeUnit.SECONDS.toNanos(20);

  private final CapacityScenario scenario;
  private final Path root;
  private final Path out;

  CapacityRunner(CapacityScenario scenario, Path out) {
    this.scenario = scenario;
    this.root = ScenarioRunner.repositoryRoot();
    this.out = out != null ? out : root.resolve("bench/results")
        .resolve(scenario.name() + "-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
  }

  /**
   * The processes of a server by depth below its root: puma-plus's root is the Java host (the gem's
   * executable execs it), its child the Ruby shepherd, the shepherd's children the workers; puma's root is
   * its master, its children the workers.
   */
  static List<String> roles(String kind) {
    return switch (kind) {
      case "puma-plus" -> List.of("host", "shepherd", "workers");
      case "puma" -> List.of("master", "workers");
      default -> List.of("server");
    };
  }

  /** The role of a process {@code depth} levels below the root; anything deeper than the last role is in it. */
  static String role(String kind, int depth) {
    List<String> roles = roles(kind);
    return roles.get(Math.min(depth, roles.size() - 1));
  }

  /**
   * Each role's CPU ticks between two readings of the same session: a process in {@code after} only is
   * counted from zero (it started inside the window).
   */
  static Map<String, Long> roleTicks(String kind, long rootPid, List<ProcessTree.Proc> before, List<ProcessTree.Proc> after) {
    Map<Long, Long> start = new HashMap<>();
    for (ProcessTree.Proc p : before) start.put(p.pid(), p.cpuTicks());
    Map<Long, Integer> depths = ProcessTree.depths(after, rootPid);
    Map<String, Long> ticks = new LinkedHashMap<>();
    for (String role : roles(kind)) ticks.put(role, 0L);
    for (ProcessTree.Proc p : after) {
      Integer depth = depths.get(p.pid());
      if (depth == null) continue;
      ticks.merge(role(kind, depth), p.cpuTicks() - start.getOrDefault(p.pid(), 0L), Long::sum);
    }
    return ticks;
  }

  /** Each role's PSS (kB) in one reading of a session. */
  static Map<String, Long> rolePssKb(String kind, long rootPid, List<ProcessTree.Proc> procs) {
    Map<Long, Integer> depths = ProcessTree.depths(procs, rootPid);
    Map<String, Long> kb = new LinkedHashMap<>();
    for (String role : roles(kind)) kb.put(role, 0L);
    for (ProcessTree.Proc p : procs) {
      Integer depth = depths.get(p.pid());
      if (depth != null) kb.merge(role(kind, depth), p.pssKb(), Long::sum);
    }
    return kb;
  }

  /** Returns the process exit code: 0 when every server ran, 1 when one could not be started or measured. */
  int run() throws Exception {
    Files.createDirectories(out);
    Files.copy(scenario.source(), out.resolve("scenario.txt"), StandardCopyOption.REPLACE_EXISTING);
    Wrk wrk = new Wrk(scenario.connections(), scenario.threads(), scenario.timeoutNs(), Wrk.installScript(out));
    System.out.printf("scenario %s: %s, wrk %d connections, %s; %d server(s) x %d run(s), warm-up %s, measured %s; results in %s%n",
        scenario.name(), scenario.path(), scenario.connections(), scenario.modes().stream().map(m -> m.word).toList(),
        scenario.servers().size(), scenario.repeat(), Format.ms(scenario.warmupNs() / 1e6), Format.ms(scenario.measureNs() / 1e6), out);
    List<Run> runs = new ArrayList<>();
    int failures = 0;
    for (int rep = 1; rep <= scenario.repeat(); rep++) {
      for (Scenario.ServerSpec server : scenario.servers()) {
        try {
          runs.addAll(runServer(wrk, server, rep));
        } catch (IOException e) {
          failures++;
          System.out.printf("  %s run %d: FAILED: %s%n", server.name(), rep, e.getMessage());
        }
      }
    }
    CapacityReport.write(scenario, runs, out, ScenarioRunner.affinity());
    System.out.println("report: " + out.resolve("summary.md"));
    return failures == 0 ? 0 : 1;
  }

  private List<Run> runServer(Wrk wrk, Scenario.ServerSpec spec, int rep) throws Exception {
    int port = ScenarioRunner.freePort();
    String command = ScenarioRunner.command(spec, port, ScenarioRunner.freePort(), root);
    String base = spec.name().replace(':', '-') + "-r" + rep;
    URI url = URI.create("http://127.0.0.1:" + port + scenario.path());
    System.out.printf("  %s run %d: starting on CPU %d: %s%n", spec.name(), rep, scenario.serverCpu(), command);
    List<Run> runs = new ArrayList<>();
    try (ServerProcess server = ServerProcess.start(command, scenario.serverCpu(), root.resolve("bench/app"), out.resolve(base + ".server.log"), port);
         ScenarioRunner.ShutdownGuard guard = new ScenarioRunner.ShutdownGuard(server)) {
      List<ProcessTree.Proc> idle = settled(server.pid());
      long idleKb = idle.stream().mapToLong(ProcessTree.Proc::pssKb).sum();
      Map<String, Long> roleIdleKb = rolePssKb(spec.kind(), server.pid(), idle);
      for (CapacityScenario.Connection mode : scenario.modes()) {
        boolean close = mode == CapacityScenario.Connection.CLOSE;
        String name = base + "-" + mode.word;
        wrk.run(url, scenario.warmupNs(), close, out.resolve(name + ".warmup.wrk.txt"));
        String loadBefore = ScenarioRunner.loadAverage();
        List<ProcessTree.Proc> before = ProcessTree.processes(server.pid());
        List<ProcessTree.Proc> jitBefore = ProcessTree.jitCompilers(before);
        long opensBefore = TcpOpens.now();
        long clientBefore = ProcessTree.reapedChildrenCpuTicks();
        Wrk.Result result = wrk.run(url, scenario.measureNs(), close, out.resolve(name + ".wrk.txt"));
        long clientTicks = ProcessTree.reapedChildrenCpuTicks() - clientBefore;
        long opens = TcpOpens.now() - opensBefore;
        List<ProcessTree.Proc> after = ProcessTree.processes(server.pid());
        Map<String, Long> roleJitTicks = roleTicks(spec.kind(), server.pid(), jitBefore, ProcessTree.jitCompilers(after));
        String loadAfter = ScenarioRunner.loadAverage();
        Map<String, Long> roleTicks = roleTicks(spec.kind(), server.pid(), before, after);
        long treeTicks = roleTicks.values().stream().mapToLong(Long::longValue).sum();
        long loadedKb = after.stream().mapToLong(ProcessTree.Proc::pssKb).sum();
        Run run = new Run(spec, mode, rep, result, treeTicks, roleTicks, roleJitTicks, idleKb, loadedKb, roleIdleKb, rolePssKb(spec.kind(), server.pid(), after),
            after.size(), opens, clientTicks, loadBefore, loadAfter);
        runs.add(run);
        System.out.printf("  %s run %d, %s: %s%n", spec.name(), rep, mode.word, CapacityReport.line(run));
      }
    }
    return runs;
  }

  /**
   * The session's processes once their count has held still for {@code SETTLE_NS}: /health can answer
   * before a forking server has started every worker. After {@code SETTLE_LIMIT_NS}, whatever is there.
   */
  private static List<ProcessTree.Proc> settled(long sid) throws InterruptedException {
    long deadline = System.nanoTime() + SETTLE_LIMIT_NS;
    int count = ProcessTree.session(sid).size();
    long stableSince = System.nanoTime();
    while (System.nanoTime() - stableSince < SETTLE_NS && System.nanoTime() < deadline) {
      Thread.sleep(100);
      int now = ProcessTree.session(sid).size();
      if (now != count) {
        count = now;
        stableSince = System.nanoTime();
      }
    }
    return ProcessTree.processes(sid);
  }
}
