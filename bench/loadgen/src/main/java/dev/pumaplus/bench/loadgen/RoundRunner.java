// Runs a round benchmark (RoundScenario: `bench/run capacity`, `bench/run lowrate`) end to end: the apps'
// setup once; then in each round, for each app, each server in the file's order as a fresh process pinned
// to the servers' CPU inside its own cpuacct cgroup: started, settled, warmed up closed-loop at full speed
// (wrk, h2load over h2), then every cell of the app in order (a pause, the cell's open-loop or closed-loop
// load, its CPU and memory read around it), and stopped. Then the report (RoundReport). A server that does not
// speak a cell's connection (puma and h2) skips that cell and its warm-ups.
package dev.pumaplus.bench.loadgen;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Single-threaded: the caller's thread drives every server, warm-up and cell in turn. */
final class RoundRunner {
  private static final long SETTLE_NS = TimeUnit.SECONDS.toNanos(1);
  private static final long SETTLE_LIMIT_NS = TimeUnit.SECONDS.toNanos(20);
  private static final Pattern VERSION = Pattern.compile("(?:Puma version: |puma-plus: puma-plus )(\\S+)");

  private final RoundScenario scenario;
  private final Path root;
  private final Path out;
  private final Path puma8;
  private final String commandLine;
  private final Path cpuacctRoot;

  /**
   * {@code out} null: bench/results/<name>-<time>; {@code puma8}: the puma 8 directory for {puma8}, or null;
   * {@code commandLine}: how the run was asked for, for the report.
   */
  RoundRunner(RoundScenario scenario, Path out, Path puma8, String commandLine, Path cpuacctRoot) {
    this.scenario = scenario;
    this.root = ScenarioRunner.repositoryRoot();
    this.out = out != null ? out : root.resolve("bench/results")
        .resolve(scenario.name() + "-" + ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
    this.puma8 = puma8;
    this.commandLine = commandLine;
    this.cpuacctRoot = cpuacctRoot;
    if (puma8 != null) checkPuma8(puma8);
  }

  /** A puma 8 directory as docs/BENCHMARKS.md builds it: puma's lib with its compiled C parser, and bin/puma. */
  static void checkPuma8(Path dir) {
    for (Path need : List.of(dir.resolve("bin/puma"), dir.resolve("lib/puma/puma_http11.so"))) {
      if (!Files.isRegularFile(need)) {
        throw new IllegalArgumentException("--puma8 " + dir + ": no " + need + " (docs/BENCHMARKS.md, \"puma 8.0.2\", builds it)");
      }
    }
  }

  /** Returns the process exit code: 0 when every server ran every cell, 1 when one could not be started or measured. */
  int run() throws Exception {
    Files.createDirectories(out);
    Files.copy(scenario.source(), out.resolve("scenario.txt"), StandardCopyOption.REPLACE_EXISTING);
    ClosedLoop closedLoop = new ClosedLoop(new Wrk(scenario.wrkConnections(), scenario.wrkThreads(), scenario.timeoutNs(), Wrk.installScript(out)),
        new H2load(scenario.wrkConnections(), scenario.wrkThreads(), scenario.timeoutNs()));
    List<Scenario.ServerSpec> servers = scenario.servers().stream().filter(s -> puma8 != null || !RoundScenario.needsPuma8(s)).toList();
    List<Scenario.ServerSpec> skipped = scenario.servers().stream().filter(s -> !servers.contains(s)).toList();
    String cpuSource;
    try (CpuAccount probe = CpuAccount.open(cpuacctRoot, "probe")) {
      cpuSource = probe.source();
    }
    ZonedDateTime started = ZonedDateTime.now(ZoneOffset.UTC);
    System.out.printf("scenario %s: %d cell(s) x %d server(s) x %d round(s), %s measured each; results in %s%n", scenario.name(),
        scenario.cells().size(), servers.size(), scenario.rounds(), Format.seconds(scenario.measureNs()), out);
    System.out.println("CPU of the tree: " + cpuSource);
    for (String note : RoundReport.notRun(skipped)) System.out.println(note);
    System.out.println(RoundReport.baselineNote(scenario.baselines(), servers.stream().map(Scenario.ServerSpec::name).toList(), skipped));

    for (RoundScenario.Setup setup : scenario.setups()) {
      if (scenario.measuredApps().stream().anyMatch(a -> a.name().equals(setup.app()))) runSetup(setup);
    }
    List<CellRun> runs = new ArrayList<>();
    Map<String, String> versions = new LinkedHashMap<>();
    int failures = 0;
    try (ClientLoop loop = new ClientLoop()) {
      for (int round = 1; round <= scenario.rounds(); round++) {
        for (RoundScenario.App app : scenario.measuredApps()) {
          for (Scenario.ServerSpec server : servers) {
            try {
              runServer(loop, closedLoop, app, server, round, versions, runs);
            } catch (IOException e) {
              failures++;
              System.out.printf("  %s %s round %d: FAILED: %s%n", server.name(), app.name(), round, e.getMessage());
            }
          }
        }
      }
    }
    RoundReport.Header header = new RoundReport.Header(scenario, commandLine, started, ZonedDateTime.now(ZoneOffset.UTC), machine(),
        ScenarioRunner.affinity(), servers, skipped, versions, puma8, cpuSource, revision());
    RoundReport.write(header, runs, out);
    System.out.println("report: " + out.resolve("summary.md"));
    return failures == 0 ? 0 : 1;
  }

  private void runSetup(RoundScenario.Setup setup) throws IOException, InterruptedException {
    List<String> argv = List.of(fill(setup.command()).trim().split("\\s+"));
    Path log = out.resolve(setup.app() + "-setup.log");
    System.out.println("setup " + setup.app() + ": " + String.join(" ", argv));
    ProcessBuilder builder = new ProcessBuilder(argv).directory(root.resolve("bench/app").toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    builder.environment().putAll(env(scenario.app(setup.app())));
    Process process = builder.start();
    if (!process.waitFor(5, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new IOException("setup " + setup.app() + " did not finish within 5 minutes (" + log + ")");
    }
    if (process.exitValue() != 0) throw new IOException("setup " + setup.app() + " exited with " + process.exitValue() + ":\n" + Files.readString(log));
  }

  /** Starts one server for one app and round and measures each of the app's cells into {@code runs}. */
  private void runServer(ClientLoop loop, ClosedLoop closedLoop, RoundScenario.App app, Scenario.ServerSpec spec, int round,
      Map<String, String> versions, List<CellRun> runs) throws Exception {
    int port = ScenarioRunner.freePort();
    String template = spec.command().replace("{app}", fill(app.rackup())).replace("{puma8}", puma8 == null ? "" : puma8.toString());
    String command = ScenarioRunner.command(new Scenario.ServerSpec(spec.name(), spec.kind(), template), port, ScenarioRunner.freePort(), root);
    String base = spec.name() + "-" + app.name() + "-r" + round;
    Path log = out.resolve(base + ".server.log");
    boolean hasHost = RoundScenario.hasHost(spec);
    System.out.printf("  %s %s round %d: starting on CPU %d: %s%n", spec.name(), app.name(), round, scenario.serverCpu(), command);
    try (CpuAccount cpu = CpuAccount.open(cpuacctRoot, base);
         ServerProcess server = ServerProcess.start(cpu.joinPrefix(), command, scenario.serverCpu(), root.resolve("bench/app"), env(app), log,
             port, app.readyPath());
         ScenarioRunner.ShutdownGuard guard = new ScenarioRunner.ShutdownGuard(server, cpu)) {
      settled(server.pid());
      versions.computeIfAbsent(spec.name(), k -> version(log));
      int n = 0;
      for (RoundScenario.Warmup w : scenario.warmups()) {
        if (!w.app().equals(app.name())) continue;
        n++; // numbered by the app's warm-up lines, so that warmup<N> is the same line for every server
        if (!RoundScenario.speaks(spec, w.connection())) continue;
        closedLoop.run(url(port, w.path()), w.connection(), w.durationNs(), out.resolve(base + ".warmup" + n));
      }
      InetSocketAddress address = new InetSocketAddress("127.0.0.1", port);
      for (int i = 0; i < scenario.cells().size(); i++) {
        RoundScenario.Cell cell = scenario.cells().get(i);
        if (!cell.app().equals(app.name())) continue;
        if (!RoundScenario.speaks(spec, cell.connection())) {
          System.out.printf("  %s round %d, %s: skipped (KIND %s: no HTTP/2)%n", spec.name(), round, cell.label(), spec.kind());
          continue;
        }
        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(scenario.pauseNs()));
        String loadBefore = ScenarioRunner.loadAverage();
        long opensBefore = TcpOpens.now();
        long clientBefore = ProcessTree.reapedChildrenCpuTicks();
        CpuAccount.Snapshot before = cpu.snapshot(server.pid(), hasHost);
        CellRun run;
        if (cell.closedLoop()) {
          ClosedLoopResult r = closedLoop.run(url(port, cell.path()), cell.connection(), scenario.measureNs(), out.resolve(base + "-" + (i + 1)));
          CpuAccount.Usage usage = CpuAccount.between(before, cpu.snapshot(server.pid(), hasHost));
          double clientCpu = r.durationUs() == 0 ? Double.NaN
              : 100.0 * (ProcessTree.reapedChildrenCpuTicks() - clientBefore) / ProcessTree.TICKS_PER_SECOND / (r.durationUs() / 1e6);
          run = cellRun(spec, round, cell, server.pid(), hasHost, r.answered(), r.errors(), Double.NaN, r.rps(), r.p50Ms(), r.p95Ms(),
              r.p99Ms(), r.p999Ms(), usage, TcpOpens.now() - opensBefore, clientCpu, loadBefore);
        } else {
          RateSchedule schedule = RateSchedule.constant(cell.rps(), scenario.measureNs());
          ConnectionMode mode = switch (cell.connection()) {
            case KEEP_ALIVE -> new ConnectionMode(ConnectionMode.Kind.POOL, scenario.pool());
            case NEW -> ConnectionMode.NEW;
            case H2 -> new ConnectionMode(ConnectionMode.Kind.H2, scenario.h2Connections());
          };
          LoadGenerator.Result r = LoadGenerator.run(loop, address, new LoadGenerator.Settings(cell.path(), schedule,
              scenario.seed() + 1_000L * round + i, scenario.timeoutNs(), mode, null));
          CpuAccount.Usage usage = CpuAccount.between(before, cpu.snapshot(server.pid(), hasHost));
          RunStats s = RunStats.of(schedule, r, Long.MAX_VALUE);
          run = cellRun(spec, round, cell, server.pid(), hasHost, s.ok() + s.httpErrors(), s.errors(), s.offeredRps(), s.achievedRps(),
              s.p50Ms(), s.p95Ms(), s.p99Ms(), s.p999Ms(), usage, TcpOpens.now() - opensBefore, Double.NaN, loadBefore);
        }
        runs.add(run);
        System.out.printf("  %s round %d, %s: %s%n", spec.name(), round, cell.label(), run.line());
      }
    }
  }

  /**
   * The closed-loop client of each connection: wrk over HTTP/1.1 (with {@code Connection: close} for a new
   * connection per request), h2load over h2. Each run's own output goes to {@code logBase} + ".wrk.txt" or
   * ".h2load.txt".
   */
  private record ClosedLoop(Wrk wrk, H2load h2load) {
    ClosedLoopResult run(URI url, RoundScenario.Connection connection, long durationNs, Path logBase) throws IOException, InterruptedException {
      return switch (connection) {
        case KEEP_ALIVE, NEW -> wrk.run(url, durationNs, connection == RoundScenario.Connection.NEW, Path.of(logBase + ".wrk.txt"));
        case H2 -> h2load.run(url, durationNs, Path.of(logBase + ".h2load.txt"));
      };
    }
  }

  private static CellRun cellRun(Scenario.ServerSpec spec, int round, RoundScenario.Cell cell, long rootPid, boolean hasHost, long answered,
      long errors, double offered, double achieved, double p50, double p95, double p99, double p999, CpuAccount.Usage usage, long opens,
      double clientCpu, String loadBefore) throws IOException {
    List<ProcessTree.Proc> procs = ProcessTree.processes(rootPid);
    long pss = procs.stream().mapToLong(ProcessTree.Proc::pssKb).sum();
    long rss = hasHost ? ProcessTree.rssKb(rootPid) : -1;
    return new CellRun(spec, round, cell, answered, errors, offered, achieved, p50, p95, p99, p999, usage, hasHost, rss, pss, procs.size(), opens,
        clientCpu, loadBefore, ScenarioRunner.loadAverage());
  }

  private static URI url(int port, String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }

  /** {root} and {out} in a rackup, setup command or environment value. */
  private String fill(String text) {
    return text.replace("{root}", root.toString()).replace("{out}", out.toString());
  }

  private Map<String, String> env(RoundScenario.App app) {
    Map<String, String> env = new LinkedHashMap<>();
    app.env().forEach((k, v) -> env.put(k, fill(v)));
    return env;
  }

  /**
   * Waits until the session's process count has held still for {@code SETTLE_NS}: a forking server answers
   * before it has started every worker. After {@code SETTLE_LIMIT_NS}, goes on anyway.
   */
  private static void settled(long sid) throws InterruptedException {
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
  }

  /** The version a server's log names at boot (puma's "Puma version: 8.0.2", puma-plus's first line), or "" for none. */
  static String version(Path log) {
    try {
      Matcher m = VERSION.matcher(Files.readString(log));
      return m.find() ? m.group(1) : "";
    } catch (IOException | java.io.UncheckedIOException e) {
      return "";
    }
  }

  /** "2 CPUs (Intel(R) Xeon(R) Processor), Linux 6.1.0-28-amd64": all CPUs, not this JVM's affinity. */
  static String machine() {
    try {
      List<String> cpuinfo = Files.readAllLines(Path.of("/proc/cpuinfo"));
      long cpus = cpuinfo.stream().filter(l -> l.startsWith("processor")).count();
      String model = cpuinfo.stream().filter(l -> l.startsWith("model name")).map(l -> l.substring(l.indexOf(':') + 1).trim())
          .findFirst().orElse("unknown CPU");
      return cpus + " CPUs (" + model + "), Linux " + Files.readString(Path.of("/proc/sys/kernel/osrelease")).trim();
    } catch (IOException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }

  /** The repository's commit, "+ changes" when its work tree differs from it; "unknown" outside git. */
  private String revision() {
    try {
      String head = git("rev-parse", "--short", "HEAD");
      return head.isEmpty() ? "unknown" : head + (git("status", "--porcelain", "--untracked-files=no").isEmpty() ? "" : " + uncommitted changes");
    } catch (IOException e) {
      return "unknown";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }

  private String git(String... args) throws IOException, InterruptedException {
    List<String> argv = new ArrayList<>(List.of("git", "-C", root.toString()));
    argv.addAll(List.of(args));
    Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes()).trim();
    return p.waitFor() == 0 ? output : "";
  }
}
