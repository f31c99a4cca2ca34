// The harness's command line (bench/run calls it): run a scenario file (open-loop, or closed-loop under wrk)
// against its servers, drive one ad-hoc load at a running server, or serve the null server.
package dev.pumaplus.bench.loadgen;

import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

public final class Main {
  private static final String USAGE = """
      usage:
        loadgen run SCENARIO_FILE [--out DIR] [--reps N] [--only NAME,NAME] [--warmup 5s --measure 15s]
            runs every server of the scenario, one after another, and writes the report to DIR
            (default bench/results/<scenario>-<time>); --warmup and --measure: a closed-loop (capacity)
            scenario's durations, instead of the file's
        loadgen load URL --rate RPS --duration 10s [--connection 'new'|'pool N'|'h2 N'] [--timeout 10s] [--seed N]
                         [--warmup 3s]
            one open-loop run against a server that is already running, after a warm-up at the same rate
            (not recorded: it loads and compiles the generator's own code); prints the summary
        loadgen null-server PORT
            the server that does nothing (HTTP/1.1 and h2c), for measuring the harness's floor
      """;

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
    Integer reps = null;
    Long warmup = null;
    Long measure = null;
    List<String> only = new ArrayList<>();
    for (int i = 1; i < args.length; i++) {
      switch (args[i]) {
        case "--out" -> out = Path.of(args[++i]);
        case "--reps" -> reps = Integer.parseInt(args[++i]);
        case "--only" -> only.addAll(List.of(args[++i].split(",")));
        case "--warmup" -> warmup = Format.parseDuration(args[++i]);
        case "--measure" -> measure = Format.parseDuration(args[++i]);
        default -> file = Path.of(args[i]);
      }
    }
    if (file == null) throw new IllegalArgumentException("run: no scenario file\n" + USAGE);
    if (CapacityScenario.describes(file)) {
      CapacityScenario capacity = CapacityScenario.parse(file).with(reps, warmup, measure);
      if (!only.isEmpty()) capacity = capacity.onlyServers(only);
      return new CapacityRunner(capacity, out).run();
    }
    if (warmup != null || measure != null) {
      throw new IllegalArgumentException("run: --warmup and --measure are for closed-loop scenarios; " + file + " sets its own steps");
    }
    Scenario scenario = Scenario.parse(file);
    if (reps != null) scenario = scenario.withRepeat(reps);
    if (!only.isEmpty()) scenario = scenario.onlyServers(only);
    return new ScenarioRunner(scenario, out).run();
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
