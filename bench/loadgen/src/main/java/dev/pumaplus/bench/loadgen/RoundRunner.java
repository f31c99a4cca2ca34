// Runs a round benchmark (RoundScenario: `bench/run capacity`, `lowrate`, `fresh`) end to end: the apps'
// setup once; then in each round, for each app, each server in the file's order as a fresh process pinned
// to the servers' CPU inside its own cpuacct cgroup: started, settled, warmed up closed-loop at full speed
// (wrk, h2load over h2), then every cell of the app in order (a pause, the cell's open-loop or closed-loop
// load, its CPU and memory read around it and at each window's split), and stopped. Then the report (RoundReport). A server that does not
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
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The caller's thread drives every server, warm-up and cell in turn; during a windowed cell one more thread
 * reads the server at each window's split while the caller's thread is the arrival clock.
 */
final class RoundRunner {
  private static final long SETTLE_LIMIT_NS = TimeUnit.SECONDS.toNanos(20);
  /** How long the generator warms its own client per connection kind ({@link #warmGenerator}). */
  static final long GENERATOR_WARMUP_NS = TimeUnit.SECONDS.toNanos(3);
  /** The highest rate it warms at: its loop and the responder share the generator's CPU. */
  static final double GENERATOR_WARMUP_MAX_RPS = 8_000;
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
    List<RoundReport.Boot> boots = new ArrayList<>();
    int failures = 0;
    try (ClientLoop loop = new ClientLoop()) {
      warmGenerator(loop);
      for (int round = 1; round <= scenario.rounds(); round++) {
        for (RoundScenario.App app : scenario.measuredApps()) {
          for (Scenario.ServerSpec server : servers) {
            try {
              runServer(loop, closedLoop, app, server, round, versions, boots, runs);
            } catch (IOException e) {
              failures++;
              System.out.printf("  %s %s round %d: FAILED: %s%n", server.name(), app.name(), round, e.getMessage());
            }
          }
        }
      }
    }
    RoundReport.Header header = new RoundReport.Header(scenario, commandLine, started, ZonedDateTime.now(ZoneOffset.UTC), machine(),
        ScenarioRunner.affinity(), servers, skipped, versions, boots, puma8, cpuSource, revision());
    RoundReport.write(header, runs, out);
    System.out.println("report: " + out.resolve("summary.md"));
    return failures == 0 ? 0 : 1;
  }

  /**
   * Warms this JVM's own client before the first measured cell, with no server of the run involved: for each
   * HTTP/1.1 connection kind the open-loop cells use, {@link #GENERATOR_WARMUP_NS} of open-loop traffic at
   * their highest rate (at most {@link #GENERATOR_WARMUP_MAX_RPS}) to a responder in this process that
   * answers every call after 10 ms. Without it the generator ran its first cell interpreted: whichever server
   * came first in the run saw the requests up to ~0.5 s late (async-http first: a p99 of 555–586 ms and a
   * send lag p99 of 518–547 ms at 7,000 rps, puma-plus after it 43–76 ms; the other order, the reverse).
   */
  private void warmGenerator(ClientLoop loop) throws InterruptedException {
    for (RoundScenario.Connection kind : List.of(RoundScenario.Connection.KEEP_ALIVE, RoundScenario.Connection.NEW)) {
      double rate = scenario.cells().stream().filter(c -> !c.closedLoop() && c.connection() == kind).mapToDouble(RoundScenario.Cell::rps)
          .max().orElse(0);
      if (rate <= 0) continue;
      ConnectionMode mode = kind == RoundScenario.Connection.KEEP_ALIVE ? new ConnectionMode(ConnectionMode.Kind.POOL, scenario.pool())
          : ConnectionMode.NEW;
      try (DependencyServer responder = new DependencyServer(0, Integer.MAX_VALUE, TimeUnit.MILLISECONDS.toNanos(10))) {
        LoadGenerator.run(loop, new InetSocketAddress("127.0.0.1", responder.port()), new LoadGenerator.Settings("/call",
            RateSchedule.constant(Math.min(rate, GENERATOR_WARMUP_MAX_RPS), GENERATOR_WARMUP_NS), scenario.seed(), scenario.timeoutNs(), mode,
            null));
      }
    }
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

  /**
   * Starts one server for one app and round and measures each of the app's cells into {@code runs}; notes its
   * version (once per server), and how long it took to answer and whether its host maps an AOT cache, in
   * {@code boots}.
   */
  private void runServer(ClientLoop loop, ClosedLoop closedLoop, RoundScenario.App app, Scenario.ServerSpec spec, int round,
      Map<String, String> versions, List<RoundReport.Boot> boots, List<CellRun> runs) throws Exception {
    int port = ScenarioRunner.freePort();
    String template = fill(spec.command()).replace("{app}", fill(app.rackup()));
    String command = ScenarioRunner.command(new Scenario.ServerSpec(spec.name(), spec.kind(), template), port, ScenarioRunner.freePort(), root, puma8, null);
    String base = spec.name() + "-" + app.name() + "-r" + round;
    Path log = out.resolve(base + ".server.log");
    boolean hasHost = RoundScenario.hasHost(spec);
    System.out.printf("  %s %s round %d: starting on CPU %d: %s%n", spec.name(), app.name(), round, scenario.serverCpu(), command);
    long starting = System.nanoTime();
    try (CpuAccount cpu = CpuAccount.open(cpuacctRoot, base);
         ServerProcess server = ServerProcess.start(cpu.joinPrefix(), command, scenario.serverCpu(), root.resolve("bench/app"), env(app), log,
             port, app.readyPath());
         ScenarioRunner.ShutdownGuard guard = new ScenarioRunner.ShutdownGuard(server, cpu)) {
      long readyNs = System.nanoTime() - starting;
      String aot = hasHost ? hostAot(server.pid()) : "";
      boots.add(new RoundReport.Boot(spec.name(), round, readyNs, aot));
      System.out.printf("  %s %s round %d: ready after %s%s%n", spec.name(), app.name(), round, Format.seconds(readyNs / 1_000_000 * 1_000_000),
          aot.isEmpty() ? "" : ", " + aot);
      if (scenario.settleNs() > 0) settled(server.pid(), scenario.settleNs());
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
        if (scenario.pauseNs() > 0) Thread.sleep(TimeUnit.NANOSECONDS.toMillis(scenario.pauseNs()));
        List<CellRun> cellRuns = cell.closedLoop()
            ? List.of(closedLoopCell(closedLoop, spec, round, cell, url(port, cell.path()), cpu, server.pid(), out.resolve(base + "-" + (i + 1))))
            : openLoopCell(loop, spec, round, cell, address, scenario.seed() + 1_000L * round + i, cpu, server.pid());
        for (CellRun run : cellRuns) {
          runs.add(run);
          System.out.printf("  %s round %d, %s%s: %s%n", spec.name(), round, cell.label(), cell.windowed() ? ", " + run.span().label() : "",
              run.line());
        }
      }
    }
  }

  /** One closed-loop cell: the client at full speed for the measured time, the server read around it. */
  private CellRun closedLoopCell(ClosedLoop closedLoop, Scenario.ServerSpec spec, int round, RoundScenario.Cell cell, URI url, CpuAccount cpu,
      long pid, Path logBase) throws IOException, InterruptedException {
    boolean hasHost = RoundScenario.hasHost(spec);
    long clientBefore = ProcessTree.reapedChildrenCpuTicks();
    Mark start = Mark.read(cpu, pid, hasHost);
    ClosedLoopResult r = closedLoop.run(url, cell.connection(), scenario.measureNs(), logBase);
    Mark end = Mark.read(cpu, pid, hasHost);
    double clientCpu = r.durationUs() == 0 ? Double.NaN
        : 100.0 * (ProcessTree.reapedChildrenCpuTicks() - clientBefore) / ProcessTree.TICKS_PER_SECOND / (r.durationUs() / 1e6);
    return cellRun(spec, round, cell, new RoundScenario.Span(0, scenario.measureNs()), hasHost, r.answered(), r.errors(), Double.NaN, r.rps(),
        r.p50Ms(), r.p95Ms(), r.p99Ms(), r.p999Ms(), start, end, clientCpu, Double.NaN);
  }

  /**
   * One open-loop cell: one continuous run of Poisson arrivals, the server read as it starts, at each of the
   * cell's window splits (from another thread, at the split's offset from the run's origin) and once every
   * request has ended; one CellRun per span of {@link RoundScenario.Cell#spans}, its requests those whose
   * intended start falls in it, its CPU between the reads at its ends.
   */
  private List<CellRun> openLoopCell(ClientLoop loop, Scenario.ServerSpec spec, int round, RoundScenario.Cell cell, InetSocketAddress address,
      long seed, CpuAccount cpu, long pid) throws IOException, InterruptedException {
    boolean hasHost = RoundScenario.hasHost(spec);
    RateSchedule schedule = RateSchedule.constant(cell.rps(), scenario.measureNs());
    ConnectionMode mode = switch (cell.connection()) {
      case KEEP_ALIVE -> new ConnectionMode(ConnectionMode.Kind.POOL, scenario.pool());
      case NEW -> ConnectionMode.NEW;
      case H2 -> new ConnectionMode(ConnectionMode.Kind.H2, scenario.h2Connections());
    };
    Map<Long, Mark> marks = new HashMap<>();
    marks.put(0L, Mark.read(cpu, pid, hasHost));
    List<Future<Mark>> splits = new ArrayList<>();
    ScheduledExecutorService reader = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "window-reads");
      t.setDaemon(true);
      return t;
    });
    LoadGenerator.Result r;
    try {
      r = LoadGenerator.run(loop, address, new LoadGenerator.Settings(cell.path(), schedule, seed, scenario.timeoutNs(), mode, null), origin -> {
        for (long at : cell.windowsNs()) {
          splits.add(reader.schedule(() -> Mark.read(cpu, pid, hasHost), origin + at - System.nanoTime(), TimeUnit.NANOSECONDS));
        }
      });
      for (int k = 0; k < splits.size(); k++) marks.put(cell.windowsNs().get(k), splits.get(k).get());
    } catch (ExecutionException e) {
      throw new IOException("reading the server at a window's split: " + e.getCause(), e.getCause());
    } finally {
      reader.shutdownNow();
    }
    marks.put(scenario.measureNs(), Mark.read(cpu, pid, hasHost));
    List<CellRun> runs = new ArrayList<>();
    for (RoundScenario.Span span : cell.spans(scenario.measureNs())) {
      RunStats s = RunStats.window(r, span.fromNs(), span.toNs(), cell.rps(), Long.MAX_VALUE);
      runs.add(cellRun(spec, round, cell, span, hasHost, s.ok() + s.httpErrors(), s.errors(), s.offeredRps(), s.achievedRps(), s.p50Ms(),
          s.p95Ms(), s.p99Ms(), s.p999Ms(), marks.get(span.fromNs()), marks.get(span.toNs()), Double.NaN, s.sendLagP99Ms()));
    }
    return runs;
  }

  /**
   * What the runner reads of a server at one moment of a cell, CPU first: its CPU, the machine's TCP opens
   * so far, its memory and process count, and the load average. Reading costs the server nothing but the
   * kernel's /proc work, charged to the reader's CPU.
   */
  private record Mark(CpuAccount.Snapshot cpu, long tcpOpens, long treePssKb, long hostRssKb, int processes, String load) {
    static Mark read(CpuAccount account, long pid, boolean hasHost) throws IOException {
      CpuAccount.Snapshot cpu = account.snapshot(pid, hasHost);
      long opens = TcpOpens.now();
      List<ProcessTree.Proc> procs = ProcessTree.processes(pid);
      return new Mark(cpu, opens, procs.stream().mapToLong(ProcessTree.Proc::pssKb).sum(), hasHost ? ProcessTree.rssKb(pid) : -1, procs.size(),
          ScenarioRunner.loadAverage());
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

  /** A span's row: what the client saw, and what the server spent between {@code from} and {@code to} (memory as of {@code to}). */
  private static CellRun cellRun(Scenario.ServerSpec spec, int round, RoundScenario.Cell cell, RoundScenario.Span span, boolean hasHost,
      long answered, long errors, double offered, double achieved, double p50, double p95, double p99, double p999, Mark from, Mark to,
      double clientCpu, double sendLagP99) {
    return new CellRun(spec, round, cell, span, answered, errors, offered, achieved, p50, p95, p99, p999, CpuAccount.between(from.cpu(), to.cpu()),
        hasHost, to.hostRssKb(), to.treePssKb(), to.processes(), to.tcpOpens() - from.tcpOpens(), clientCpu, sendLagP99, from.load(), to.load());
  }

  private static URI url(int port, String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }

  /** {root} and {out} in a rackup, setup command, server command or environment value. */
  private String fill(String text) {
    return text.replace("{root}", root.toString()).replace("{out}", out.toString());
  }

  private Map<String, String> env(RoundScenario.App app) {
    Map<String, String> env = new LinkedHashMap<>();
    app.env().forEach((k, v) -> env.put(k, fill(v)));
    return env;
  }

  /**
   * Waits until the session's process count has held still for {@code settleNs}: a forking server answers
   * before it has started every worker. After {@code SETTLE_LIMIT_NS}, goes on anyway.
   */
  private static void settled(long sid, long settleNs) throws InterruptedException {
    long deadline = System.nanoTime() + SETTLE_LIMIT_NS;
    int count = ProcessTree.session(sid).size();
    long stableSince = System.nanoTime();
    while (System.nanoTime() - stableSince < settleNs && System.nanoTime() < deadline) {
      Thread.sleep(100);
      int now = ProcessTree.session(sid).size();
      if (now != count) {
        count = now;
        stableSince = System.nanoTime();
      }
    }
  }

  /**
   * Whether the host JVM {@code pid} uses an AOT cache: "AOT cache in use" when the file its command line
   * names with -XX:AOTCache is mapped into it, "AOT cache given, not in use" when it is not (-XX:AOTMode=off,
   * or a cache the JVM refused), "no AOT cache" without the flag (the launcher passes none when
   * gem/vendor/aot/host.aot is missing or older than the host's jars).
   */
  static String hostAot(long pid) {
    try {
      String cmdline = Files.readString(Path.of("/proc", Long.toString(pid), "cmdline"));
      String maps = Files.readString(Path.of("/proc", Long.toString(pid), "maps"));
      return aotStatus(List.of(cmdline.split("\0")), maps);
    } catch (IOException | java.io.UncheckedIOException e) {
      return "AOT cache unknown (" + e.getMessage() + ")";
    }
  }

  /** {@link #hostAot} on a JVM's argv and the text of its /proc/PID/maps. */
  static String aotStatus(List<String> argv, String maps) {
    String flag = "-XX:AOTCache=";
    String cache = argv.stream().filter(a -> a.startsWith(flag)).map(a -> a.substring(flag.length())).reduce((a, b) -> b).orElse(null);
    if (cache == null) return "no AOT cache";
    boolean mapped = maps.lines().anyMatch(l -> l.endsWith(" " + cache) || l.endsWith(" " + Path.of(cache).toAbsolutePath()));
    return mapped ? "AOT cache in use" : "AOT cache given, not in use";
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
