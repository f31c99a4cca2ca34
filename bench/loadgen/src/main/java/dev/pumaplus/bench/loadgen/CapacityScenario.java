// The capacity benchmark as written in bench/scenarios/capacity.scenario: closed-loop maximum throughput of
// one path, each server under wrk with keep-alive and with a new connection per request, and the null
// server as the client's own ceiling. The open-loop scenarios are Scenario; a file with a `closed-loop`
// line is one of these.
package dev.pumaplus.bench.loadgen;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Immutable. File format, the same line syntax as Scenario's, {@code #} starts a comment:
 * <pre>
 * name         capacity                    # names the results directory
 * describe     free text (repeatable)      # printed at the top of the report
 * closed-loop  wrk 16 1                    # the client, its connections and threads
 * path         /hello                      # what every request GETs
 * connection   keep-alive                  # repeatable, in order: keep-alive | close (a new connection per request)
 * timeout      5s                          # wrk's per-request timeout; counted as an error
 * warmup       5s                          # before every measured run, same connection mode, not recorded
 * measure      15s                         # the measured run (wrk rounds both to whole seconds)
 * repeat       3                           # rounds over every server; the table shows medians
 * server-cpu   0                           # the CPU every server is pinned to (taskset)
 * server       NAME KIND COMMAND...        # NAME is KIND:CONFIG (puma-plus:w1, puma:w1) or just KIND (null)
 * </pre>
 * KIND {@code puma-plus} or {@code puma} names the process roles and pairs the rows for the ratios:
 * puma-plus:CONFIG against puma:CONFIG. KIND {@code null} is the client's ceiling. Commands take the same
 * placeholders as Scenario's ({port}, {control}, {control_token}, {app}, {puma_plus}, {java}, {jar}, {root}).
 */
record CapacityScenario(String name, String description, int connections, int threads, String path,
    List<Connection> modes, long timeoutNs, long warmupNs, long measureNs, int repeat, int serverCpu,
    List<Scenario.ServerSpec> servers, Path source) {

  /** How wrk's connections carry requests. */
  enum Connection {
    KEEP_ALIVE("keep-alive"), CLOSE("close");

    final String word;

    Connection(String word) {
      this.word = word;
    }

    static Connection parse(String word) {
      for (Connection c : values()) if (c.word.equals(word)) return c;
      throw new IllegalArgumentException("connection is keep-alive or close, was: " + word);
    }
  }

  /** True when {@code file} has a {@code closed-loop} line, i.e. is a capacity scenario. */
  static boolean describes(Path file) throws IOException {
    return Files.readAllLines(file).stream().map(CapacityScenario::strip).anyMatch(l -> l.split("\\s+")[0].equals("closed-loop"));
  }

  static CapacityScenario parse(Path file) throws IOException {
    String name = file.getFileName().toString().replaceFirst("\\.scenario$", "");
    StringBuilder description = new StringBuilder();
    int connections = 0;
    int threads = 0;
    String path = "/hello";
    List<Connection> modes = new ArrayList<>();
    long timeout = Format.parseDuration("5s");
    long warmup = Format.parseDuration("5s");
    long measure = Format.parseDuration("15s");
    int repeat = 1;
    int serverCpu = 0;
    List<Scenario.ServerSpec> servers = new ArrayList<>();
    int lineNo = 0;
    for (String raw : Files.readAllLines(file)) {
      lineNo++;
      String line = strip(raw);
      if (line.isEmpty()) continue;
      String[] kv = line.split("\\s+", 2);
      String value = kv.length > 1 ? kv[1].trim() : "";
      try {
        switch (kv[0]) {
          case "name" -> name = value;
          case "describe" -> description.append(description.isEmpty() ? "" : " ").append(value);
          case "closed-loop" -> {
            String[] c = value.split("\\s+");
            if (c.length != 3 || !c[0].equals("wrk")) throw new IllegalArgumentException("closed-loop needs: wrk CONNECTIONS THREADS");
            connections = Integer.parseInt(c[1]);
            threads = Integer.parseInt(c[2]);
          }
          case "path" -> path = value;
          case "connection" -> modes.add(Connection.parse(value));
          case "timeout" -> timeout = Format.parseDuration(value);
          case "warmup" -> warmup = Format.parseDuration(value);
          case "measure" -> measure = Format.parseDuration(value);
          case "repeat" -> repeat = Integer.parseInt(value);
          case "server-cpu" -> serverCpu = Integer.parseInt(value);
          case "server" -> {
            String[] s = value.split("\\s+", 3);
            if (s.length != 3) throw new IllegalArgumentException("server needs: NAME KIND COMMAND...");
            if (!s[0].equals(s[1]) && !s[0].startsWith(s[1] + ":")) throw new IllegalArgumentException("server name is KIND or KIND:CONFIG, was: " + s[0]);
            servers.add(new Scenario.ServerSpec(s[0], s[1], s[2]));
          }
          default -> throw new IllegalArgumentException("unknown directive '" + kv[0] + "'");
        }
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(file + ":" + lineNo + ": " + e.getMessage(), e);
      }
    }
    if (connections < 1 || threads < 1) throw new IllegalArgumentException(file + ": no 'closed-loop wrk CONNECTIONS THREADS' line");
    if (modes.isEmpty()) throw new IllegalArgumentException(file + ": no 'connection' line");
    if (servers.isEmpty()) throw new IllegalArgumentException(file + ": no 'server' line");
    if (repeat < 1) throw new IllegalArgumentException(file + ": repeat must be >= 1");
    return new CapacityScenario(name, description.toString(), connections, threads, path, List.copyOf(modes), timeout, warmup,
        measure, repeat, serverCpu, List.copyOf(servers), file);
  }

  private static String strip(String raw) {
    return raw.replaceFirst("\\s+#.*$", "").replaceFirst("^#.*$", "").trim();
  }

  /** The same with other repetitions and durations (a quick run: --reps 1 --warmup 1s --measure 3s); null keeps the file's. */
  CapacityScenario with(Integer reps, Long warmup, Long measure) {
    return new CapacityScenario(name, description, connections, threads, path, modes, timeoutNs, warmup == null ? warmupNs : warmup,
        measure == null ? measureNs : measure, reps == null ? repeat : reps, serverCpu, servers, source);
  }

  /** Only the servers named (in the file's order); an unknown name is an error. */
  CapacityScenario onlyServers(List<String> names) {
    for (String n : names) {
      if (servers.stream().noneMatch(s -> s.name().equals(n))) throw new IllegalArgumentException("no server named " + n);
    }
    return new CapacityScenario(name, description, connections, threads, path, modes, timeoutNs, warmupNs, measureNs, repeat,
        serverCpu, servers.stream().filter(s -> names.contains(s.name())).toList(), source);
  }

  /** The part of a server's name after "KIND:" ("w1"), or "" for a bare KIND. */
  static String config(Scenario.ServerSpec server) {
    return server.name().equals(server.kind()) ? "" : server.name().substring(server.kind().length() + 1);
  }
}
