// A benchmark scenario as written in bench/scenarios/*.scenario: the load (path, rate steps, connection
// mode, timeout, probe) and the servers that face it, one after another, in one run. The server list is
// data: a new server (e.g. puma-plus with autoscaling) is one more `server` line.
package dev.pumaplus.bench.loadgen;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Immutable. File format, one directive per line, {@code #} starts a comment:
 * <pre>
 * name        router                      # names the results directory
 * describe    free text (repeatable)      # printed at the top of the report
 * path        /mix/0/200                  # what every load request GETs
 * ready       /health                     # what answers 200 once a server is up (the default)
 * connection  new | pool N | h2 N         # see ConnectionMode
 * timeout     30s                         # client timeout, from the intended start; counted as an error
 * slo         500ms                       # latency above this is summed as "above SLO"
 * seed        1                           # Poisson seed: every server faces the same arrival times
 * warmup      10s 20                      # duration, rate: same path and connection mode, not recorded
 * step        60s 30                      # duration, rate (repeatable, in order): the measured schedule
 * repeat      3                           # runs per server; the table shows medians
 * probe       /health 1s 5s               # path, interval, timeout: a health check beside the load
 * server-cpu  0                           # the CPU every server is pinned to (taskset)
 * dependency  20 40ms                     # K, HOLD: a DependencyServer on loopback, started fresh before
 *                                         # each server's run and stopped after it: K calls at once, each
 *                                         # held HOLD, the rest wait (capacity K / HOLD calls per second)
 * server      NAME KIND COMMAND...        # KIND: puma-plus (its /stats is polled), puma, null, other
 * baseline    NAME                        # the server the report's ratios are to, round by round
 * </pre>
 * Commands may use {port}, {control} (a free port for puma-plus's control app), {control_token} (the
 * token the harness polls /stats with), {root}, {app}
 * (bench/app/config.ru), {puma_plus} (gem/exe/puma-plus), {java} and {jar} (this harness), {puma8}
 * (the directory given with --puma8: a server whose command uses it runs only then), and {dependency}
 * (the dependency's 127.0.0.1:PORT; only with a {@code dependency} line).
 */
public record Scenario(String name, String description, String path, String readyPath, ConnectionMode connection, long timeoutNs,
    long sloNs, long seed, RateSchedule warmup, RateSchedule schedule, int repeat, LoadGenerator.Probe probe,
    int serverCpu, Dependency dependency, List<ServerSpec> servers, String baseline, Path source) {

  /** One server of the run. {@code kind} decides how its own metrics are read. */
  public record ServerSpec(String name, String kind, String command) {}

  /** The {@code dependency} line: {@code concurrency} calls served at once, each held {@code holdNs}. */
  public record Dependency(int concurrency, long holdNs) {
    public Dependency {
      if (concurrency < 1) throw new IllegalArgumentException("dependency concurrency must be >= 1: " + concurrency);
      if (holdNs <= 0) throw new IllegalArgumentException("dependency hold must be > 0");
    }

    /** Calls per second it serves at most, K / HOLD. */
    public double capacityPerSecond() {
      return concurrency * 1e9 / holdNs;
    }

    static Dependency parse(String value) {
      String[] words = value.split("\\s+");
      if (words.length != 2) throw new IllegalArgumentException("dependency needs: CONCURRENCY HOLD (e.g. 20 40ms), was: " + value);
      return new Dependency(Integer.parseInt(words[0]), Format.parseDuration(words[1]));
    }
  }

  public static Scenario parse(Path file) throws IOException {
    String name = file.getFileName().toString().replaceFirst("\\.scenario$", "");
    StringBuilder description = new StringBuilder();
    String path = "/hello";
    String ready = "/health";
    ConnectionMode connection = ConnectionMode.NEW;
    long timeout = Format.parseDuration("10s");
    long slo = Format.parseDuration("150ms");
    long seed = 1;
    RateSchedule warmup = null;
    List<RateSchedule.Step> steps = new ArrayList<>();
    int repeat = 1;
    LoadGenerator.Probe probe = null;
    int serverCpu = 0;
    Dependency dependency = null;
    List<ServerSpec> servers = new ArrayList<>();
    String baseline = null;
    int lineNo = 0;
    for (String raw : Files.readAllLines(file)) {
      lineNo++;
      String line = raw.replaceFirst("\\s+#.*$", "").replaceFirst("^#.*$", "").trim();
      if (line.isEmpty()) continue;
      String[] kv = line.split("\\s+", 2);
      String key = kv[0];
      String value = kv.length > 1 ? kv[1].trim() : "";
      try {
        switch (key) {
          case "name" -> name = value;
          case "describe" -> description.append(description.isEmpty() ? "" : " ").append(value);
          case "path" -> path = value;
          case "ready" -> ready = value;
          case "connection" -> connection = ConnectionMode.parse(value);
          case "timeout" -> timeout = Format.parseDuration(value);
          case "slo" -> slo = Format.parseDuration(value);
          case "seed" -> seed = Long.parseLong(value);
          case "warmup" -> warmup = RateSchedule.constant(rate(value), duration(value));
          case "step" -> steps.add(new RateSchedule.Step(duration(value), rate(value)));
          case "repeat" -> repeat = Integer.parseInt(value);
          case "probe" -> {
            String[] p = value.split("\\s+");
            if (p.length != 3) throw new IllegalArgumentException("probe needs: PATH INTERVAL TIMEOUT");
            probe = new LoadGenerator.Probe(p[0], Format.parseDuration(p[1]), Format.parseDuration(p[2]));
          }
          case "server-cpu" -> serverCpu = Integer.parseInt(value);
          case "dependency" -> dependency = Dependency.parse(value);
          case "server" -> {
            String[] s = value.split("\\s+", 3);
            if (s.length != 3) throw new IllegalArgumentException("server needs: NAME KIND COMMAND...");
            servers.add(new ServerSpec(s[0], s[1], s[2]));
          }
          case "baseline" -> baseline = value;
          default -> throw new IllegalArgumentException("unknown directive '" + key + "'");
        }
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(file + ":" + lineNo + ": " + e.getMessage(), e);
      }
    }
    if (steps.isEmpty()) throw new IllegalArgumentException(file + ": no 'step' line");
    if (servers.isEmpty()) throw new IllegalArgumentException(file + ": no 'server' line");
    if (repeat < 1) throw new IllegalArgumentException(file + ": repeat must be >= 1");
    if (dependency == null) {
      for (ServerSpec s : servers) {
        if (s.command().contains("{dependency}")) {
          throw new IllegalArgumentException(file + ": server " + s.name() + " uses {dependency} but there is no 'dependency' line");
        }
      }
    }
    String base = baseline;
    if (base != null && servers.stream().noneMatch(s -> s.name().equals(base))) {
      throw new IllegalArgumentException(file + ": baseline " + base + " is not a server of the scenario");
    }
    return new Scenario(name, description.toString(), path, ready, connection, timeout, slo, seed, warmup,
        new RateSchedule(steps), repeat, probe, serverCpu, dependency, List.copyOf(servers), baseline, file);
  }

  private static long duration(String value) {
    return Format.parseDuration(value.split("\\s+")[0]);
  }

  private static double rate(String value) {
    String[] words = value.split("\\s+");
    if (words.length != 2) throw new IllegalArgumentException("expected: DURATION RATE, was: " + value);
    return Double.parseDouble(words[1]);
  }

  public Scenario withRepeat(int reps) {
    return new Scenario(name, description, path, readyPath, connection, timeoutNs, sloNs, seed, warmup, schedule, reps, probe,
        serverCpu, dependency, servers, baseline, source);
  }

  /** Only the servers named (in the file's order); an unknown name is an error. */
  public Scenario onlyServers(List<String> names) {
    for (String n : names) {
      if (servers.stream().noneMatch(s -> s.name().equals(n))) throw new IllegalArgumentException("no server named " + n);
    }
    List<ServerSpec> kept = servers.stream().filter(s -> names.contains(s.name())).toList();
    return new Scenario(name, description, path, readyPath, connection, timeoutNs, sloNs, seed, warmup, schedule, repeat, probe,
        serverCpu, dependency, kept, baseline, source);
  }
}
