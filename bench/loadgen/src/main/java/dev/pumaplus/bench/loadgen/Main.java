// The harness's command line (bench/run calls it): run a scenario file (an open-loop Scenario, or a round
// benchmark: RoundScenario) against its servers, drive one ad-hoc load at a running server, or serve the
// null server.
package dev.pumaplus.bench.loadgen;

import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

public final class Main {
  private static final String USAGE = """
      usage:
        loadgen run SCENARIO_FILE [--out DIR] [--rounds N] [--only NAME,NAME]
            runs every server of the scenario, round after round, and writes the report to DIR
            (default bench/results/<scenario>-<time>); --rounds: instead of the file's repeat/rounds
            [--puma8 DIR]                         run the servers whose command uses {puma8} from DIR
          a round benchmark (a file with open-loop/closed-loop cells: capacity, lowrate, fresh) also takes
            [--warmup 5s] [--measure 15s]         each warm-up line's and each cell's duration (a window split at
                                                  or past --measure is dropped)
            [--apps A,B] [--paths /hello,/] [--connections keep-alive,new,h2] [--rates 10,50]   only these cells
        loadgen load URL --rate RPS --duration 10s [--connection 'new'|'pool N'|'h2 N'] [--timeout 10s] [--seed N]
                         [--warmup 3s]
            one open-loop run against a server that is already running, after a warm-up at the same rate
            (not recorded: it loads and compiles the generator's own code); prints the summary
        loadgen null-server PORT
            the server that does nothing (HTTP/1.1 and h2c), for measuring the harness's floor
      """;

  /** The options only a round benchmark takes. */
  private static final List<String> ROUND_OPTIONS = List.of("--warmup", "--measure", "--apps", "--paths", "--connections", "--rates");

  private Main() {}

  public static void main(String[] args) throws Exception {
    System.setProperty("java.awt.headless", "true");
    if (args.length == 0) {
      System.err.print(USAGE);
      System.exit(2);
    }
    switch (args[0]) {
      case "run" -> System.exit(runScenario(args));
      case "load" -> load(args);
      case "null-server" -> NullServer.main(new String[] {args[1]});
      default -> {
        System.err.print(USAGE);
        System.exit(2);
      }
    }
  }

  private static int runScenario(String[] args) throws Exception {
    Path file = null;
    Path out = null;
    Integer rounds = null;
    Long warmup = null;
    Long measure = null;
    Path puma8 = null;
    List<String> only = new ArrayList<>();
    List<String> apps = new ArrayList<>();
    List<String> paths = new ArrayList<>();
    List<String> connections = new ArrayList<>();
    List<Double> rates = new ArrayList<>();
    boolean roundOptions = false;
    for (int i = 1; i < args.length; i++) {
      roundOptions |= ROUND_OPTIONS.contains(args[i]);
      switch (args[i]) {
        case "--out" -> out = Path.of(args[++i]);
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--only" -> only.addAll(List.of(args[++i].split(",")));
        case "--warmup" -> warmup = Format.parseDuration(args[++i]);
        case "--measure" -> measure = Format.parseDuration(args[++i]);
        case "--apps" -> apps.addAll(List.of(args[++i].split(",")));
        case "--paths" -> paths.addAll(List.of(args[++i].split(",")));
        case "--connections" -> connections.addAll(List.of(args[++i].split(",")));
        case "--rates" -> {
          for (String r : args[++i].split(",")) rates.add(Double.parseDouble(r));
        }
        case "--puma8" -> puma8 = Path.of(args[++i]).toAbsolutePath();
        default -> {
          if (args[i].startsWith("--")) throw new IllegalArgumentException("run: unknown option " + args[i] + "\n" + USAGE);
          file = Path.of(args[i]);
        }
      }
    }
    if (file == null) throw new IllegalArgumentException("run: no scenario file\n" + USAGE);
    if (RoundScenario.describes(file)) {
      RoundScenario scenario = RoundScenario.parse(file).with(rounds, warmup, measure).only(only, apps, paths, connections, rates);
      return new RoundRunner(scenario, out, puma8, commandLine(args), CpuAccount.CPUACCT).run();
    }
    if (roundOptions) {
      throw new IllegalArgumentException("run: " + String.join(", ", ROUND_OPTIONS) + " are for round benchmarks (capacity, lowrate, fresh); "
          + file + " sets its own load");
    }
    Scenario scenario = Scenario.parse(file);
    if (rounds != null) scenario = scenario.withRepeat(rounds);
    if (!only.isEmpty()) scenario = scenario.onlyServers(only);
    return new ScenarioRunner(scenario, out, puma8).run();
  }

  /** The run as `bench/run` takes it: "bench/run lowrate --rounds 1" for bench/scenarios/lowrate.scenario. */
  static String commandLine(String[] args) {
    List<String> words = new ArrayList<>(List.of("bench/run"));
    for (int i = 1; i < args.length; i++) {
      Path p = Path.of(args[i]);
      boolean scenarioFile = args[i].endsWith(".scenario") && p.getParent() != null && p.getParent().endsWith(Path.of("bench", "scenarios"));
      words.add(scenarioFile ? p.getFileName().toString().replaceFirst("\\.scenario$", "") : args[i]);
    }
    return String.join(" ", words);
  }

  private static void load(String[] args) throws Exception {
    URI url = URI.create(args[1]);
    double rate = 100;
    long duration = Format.parseDuration("10s");
    long timeout = Format.parseDuration("10s");
    long seed = 1;
    long warmup = Format.parseDuration("3s");
    ConnectionMode mode = ConnectionMode.NEW;
    for (int i = 2; i < args.length; i++) {
      switch (args[i]) {
        case "--rate" -> rate = Double.parseDouble(args[++i]);
        case "--duration" -> duration = Format.parseDuration(args[++i]);
        case "--timeout" -> timeout = Format.parseDuration(args[++i]);
        case "--seed" -> seed = Long.parseLong(args[++i]);
        case "--warmup" -> warmup = Format.parseDuration(args[++i]);
        case "--connection" -> mode = ConnectionMode.parse(args[++i]);
        default -> throw new IllegalArgumentException("load: unknown option " + args[i] + "\n" + USAGE);
      }
    }
    String path = url.getRawPath().isEmpty() ? "/" : url.getRawPath() + (url.getRawQuery() == null ? "" : "?" + url.getRawQuery());
    RateSchedule schedule = RateSchedule.constant(rate, duration);
    try (ClientLoop loop = new ClientLoop()) {
      InetSocketAddress address = new InetSocketAddress(url.getHost(), url.getPort());
      if (warmup > 0) {
        LoadGenerator.run(loop, address, new LoadGenerator.Settings(path, RateSchedule.constant(rate, warmup), seed + 1, timeout, mode, null));
      }
      LoadGenerator.Result result = LoadGenerator.run(loop, address,
          new LoadGenerator.Settings(path, schedule, seed, timeout, mode, null));
      System.out.println(mode + ", " + (result.usedEpoll() ? "epoll" : "nio") + ": "
          + RunStats.of(schedule, result, Long.MAX_VALUE).line());
    }
  }
}
