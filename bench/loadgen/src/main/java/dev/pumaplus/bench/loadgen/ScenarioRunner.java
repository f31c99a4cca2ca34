// Runs one scenario end to end: for each repetition, each server in the file's order is started alone on
// the servers' CPU (after a fresh dependency, with a `dependency` line), warmed up, measured under the
// scenario's load, sampled, and stopped; then the report is written (summary table, per-second timeline,
// plot, raw per-request CSV).
package dev.pumaplus.bench.loadgen;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Single-threaded: the caller's thread is the generator's arrival clock while a run is measured. */
final class ScenarioRunner {
  /** The token every puma-plus under test requires ({control_token}): drawn once per harness run. */
  static final String CONTROL_TOKEN = randomToken();

  /** One measured run of one server; {@code dependency} is null without a dependency line. */
  record Run(String server, int rep, RunStats stats, List<RunStats> steps, double memAvgMb, double memPeakMb, int processes,
      double cpuPercent,
      Timeline timeline, String loadBefore, String loadAfter, DependencyStats dependency) {}

  private final Scenario scenario;
  private final Path root;
  private final Path out;
  private final Path puma8;
  private final List<Scenario.ServerSpec> skipped;

  /** {@code puma8}: the puma 8 directory for {puma8}, or null (its servers are then not run). */
  ScenarioRunner(Scenario scenario, Path out, Path puma8) {
    if (puma8 != null) RoundRunner.checkPuma8(puma8);
    this.puma8 = puma8;
    this.skipped = scenario.servers().stream().filter(s -> puma8 == null && RoundScenario.needsPuma8(s)).toList();
    this.scenario = skipped.isEmpty() ? scenario
        : scenario.onlyServers(scenario.servers().stream().filter(s -> !skipped.contains(s)).map(Scenario.ServerSpec::name).toList());
    this.root = repositoryRoot();
    this.out = out != null ? out : root.resolve("bench/results")
        .resolve(scenario.name() + "-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
  }

  /** Returns the process exit code: 0 when every server ran, 1 when one could not be started. */
  int run() throws Exception {
    Files.createDirectories(out);
    Files.copy(scenario.source(), out.resolve("scenario.txt"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    System.out.printf("scenario %s: %s, %s, %d server(s) x %d run(s); results in %s%n", scenario.name(), scenario.path(),
        scenario.connection(), scenario.servers().size(), scenario.repeat(), out);
    List<String> notRun = RoundReport.notRun(skipped);
    notRun.forEach(System.out::println);
    List<Run> runs = new ArrayList<>();
    int failures = 0;
    try (ClientLoop loop = new ClientLoop()) {
      for (int rep = 1; rep <= scenario.repeat(); rep++) {
        for (Scenario.ServerSpec server : scenario.servers()) {
          try {
            runs.add(runOne(loop, server, rep));
          } catch (IOException e) {
            failures++;
            System.out.printf("  %s run %d: FAILED: %s%n", server.name(), rep, e.getMessage());
          }
        }
      }
    }
    Report.write(scenario, runs, notRun, out, affinity());
    System.out.println("report: " + out.resolve("summary.md"));
    return failures == 0 ? 0 : 1;
  }

  private Run runOne(ClientLoop loop, Scenario.ServerSpec spec, int rep) throws Exception {
    int port = freePort();
    int control = freePort();
    Scenario.Dependency dep = scenario.dependency();
    // A fresh one per run, in this JVM (on the generator's CPU: it only arms timers), so that no run
    // inherits another's waiting calls or counts.
    try (DependencyServer dependency = dep == null ? null : new DependencyServer(0, dep.concurrency(), dep.holdNs())) {
      return runOne(loop, spec, rep, port, control, dependency);
    }
  }

  private Run runOne(ClientLoop loop, Scenario.ServerSpec spec, int rep, int port, int control, DependencyServer dependency)
      throws Exception {
    String command = command(spec, port, control, root, puma8, dependency == null ? null : dependency.hostPort());
    Path log = out.resolve(spec.name() + "-r" + rep + ".server.log");
    InetSocketAddress address = new InetSocketAddress("127.0.0.1", port);
    System.out.printf("  %s run %d: starting on CPU %d: %s%n", spec.name(), rep, scenario.serverCpu(), command);
    try (ServerProcess server = ServerProcess.start(List.of(), command, scenario.serverCpu(), root.resolve("bench/app"), Map.of(), log, port,
        scenario.readyPath());
         ShutdownGuard guard = new ShutdownGuard(server)) {
      if (scenario.warmup() != null) {
        LoadGenerator.run(loop, address, new LoadGenerator.Settings(scenario.path(), scenario.warmup(), scenario.seed() + 1_000_003L,
            scenario.timeoutNs(), scenario.connection(), null));
      }
      String loadBefore = loadAverage();
      URI stats = spec.kind().equals("puma-plus")
          ? URI.create("http://127.0.0.1:" + control + "/stats?token=" + CONTROL_TOKEN) : null;
      LoadGenerator.Result result;
      ServerSampler sampler = new ServerSampler(server.pid(), stats, dependency);
      if (dependency != null) dependency.restartPeak();
      try {
        sampler.start();
        result = LoadGenerator.run(loop, address, new LoadGenerator.Settings(scenario.path(), scenario.schedule(), scenario.seed(),
            scenario.timeoutNs(), scenario.connection(), scenario.probe()));
      } finally {
        sampler.close();
      }
      String loadAfter = loadAverage();
      RunStats stats1 = RunStats.of(scenario.schedule(), result, scenario.sloNs());
      double[] memory = Timeline.memory(sampler.processes(), result.originNanos(), result.scheduleNs());
      Timeline timeline = Timeline.build(scenario.schedule(), result, sampler.processes(), sampler.queue(), sampler.hasStats(),
          sampler.dependency());
      DependencyStats depStats = dependency == null ? null
          : DependencyStats.of(scenario.dependency(), scenario.schedule(), result, timeline, dependency.counts().peakInFlight());
      Report.writeRequests(result, out.resolve(spec.name() + "-r" + rep + ".requests.csv"));
      List<ServerSampler.QueueSample> queue = sampler.queue();
      long lastDropped = queue.stream().mapToLong(ServerSampler.QueueSample::dropped).max().orElse(-1);
      String dropped = lastDropped < 0 ? "" : ", dropped by the server (client gone while queued): " + lastDropped;
      System.out.printf("  %s run %d: %s; memory avg %.0f MB peak %.0f MB, %d processes, CPU %.0f%% of a core%s%n", spec.name(), rep,
          stats1.line(), memory[0], memory[1], (int) memory[2], memory[3], dropped);
      if (depStats != null) {
        System.out.printf("  %s run %d: dependency: limit %s; settled %s; goodput %.0f rps (dependency %.0f calls/s) of %.0f;"
                + " p99 of OK in step %d %s; 503 shed %d, other HTTP %d, timeouts %d, broken %d; peak in flight %d%n", spec.name(), rep,
            depStats.limitTrace(), depStats.settleText(), depStats.goodputRps(), depStats.dependencyRps(), depStats.capacityRps(),
            depStats.overloadStep(), Format.ms(depStats.p99OkMs()), depStats.shed503(), depStats.otherHttp(), depStats.timeouts(),
            depStats.connectionErrors(), depStats.peakInFlight());
      }
      List<RunStats> steps = new ArrayList<>();
      long from = 0;
      for (RateSchedule.Step step : scenario.schedule().steps()) {
        steps.add(RunStats.window(result, from, from + step.durationNs(), step.rps(), scenario.sloNs()));
        from += step.durationNs();
      }
      return new Run(spec.name(), rep, stats1, steps, memory[0], memory[1], (int) memory[2], memory[3], timeline, loadBefore, loadAfter,
          depStats);
    }
  }

  private static String randomToken() {
    byte[] bytes = new byte[16];
    new SecureRandom().nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  /**
   * A server line's command with its placeholders filled in (Scenario's Javadoc lists them); {@code
   * dependency}: the dependency's host:port, or null without one (Scenario.parse has refused a command that
   * needs it then).
   */
  static String command(Scenario.ServerSpec spec, int port, int control, Path root, Path puma8, String dependency) {
    return spec.command()
        .replace("{dependency}", dependency == null ? "" : dependency)
        .replace("{puma8}", puma8 == null ? "" : puma8.toString())
        .replace("{port}", Integer.toString(port))
        .replace("{control}", Integer.toString(control))
        .replace("{control_token}", CONTROL_TOKEN)
        .replace("{root}", root.toString())
        .replace("{app}", root.resolve("bench/app/config.ru").toString())
        .replace("{puma_plus}", root.resolve("gem/exe/puma-plus").toString())
        .replace("{java}", ProcessHandle.current().info().command().orElse("java"))
        .replace("{jar}", jarPath());
  }

  /**
   * Stops the server if the harness itself is stopped (TERM, Ctrl-C) mid-run: it is in another session.
   * Closes {@code resources} in order: the server first, then what must outlive it (its cgroup).
   */
  static final class ShutdownGuard implements AutoCloseable {
    private final Thread hook;

    ShutdownGuard(AutoCloseable... resources) {
      hook = new Thread(() -> {
        for (AutoCloseable resource : resources) {
          try {
            resource.close();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
          } catch (Exception e) {
            System.err.println("stopping after the harness was stopped: " + e);
          }
        }
      }, "stop-server");
      Runtime.getRuntime().addShutdownHook(hook);
    }

    @Override
    public void close() {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // already shutting down: the hook runs
      }
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static String jarPath() {
    try {
      return Path.of(ScenarioRunner.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    } catch (Exception e) {
      return "bench/loadgen/target/loadgen.jar";
    }
  }

  /** The repository root: $PUMA_PLUS_ROOT, else the nearest parent of the working directory with bench/app. */
  static Path repositoryRoot() {
    String env = System.getenv("PUMA_PLUS_ROOT");
    if (env != null) return Path.of(env).toAbsolutePath();
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("bench/app/config.ru"))) return p;
    }
    throw new IllegalStateException("cannot find the repository root (bench/app/config.ru); set PUMA_PLUS_ROOT");
  }

  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException e) {
      return "n/a";
    }
  }

  /** The CPUs this JVM (the generator) may run on, from /proc/self/status. */
  static String affinity() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("Cpus_allowed_list:")) return line.substring(line.indexOf(':') + 1).trim();
      }
    } catch (IOException e) {
      // fall through
    }
    return "n/a";
  }

  static Map<String, List<Run>> byServer(List<Run> runs) {
    Map<String, List<Run>> map = new LinkedHashMap<>();
    for (Run run : runs) map.computeIfAbsent(run.server(), k -> new ArrayList<>()).add(run);
    return map;
  }
}
