// A round benchmark as written in bench/scenarios/{capacity,lowrate,fresh}.scenario: a matrix of cells (an
// app's path, a connection mode, an open-loop rate or the closed loop's full speed) measured on every server,
// in rounds. In each round every server runs once per app as a fresh process: it starts, gets the app's
// warm-up, then runs every cell of the app in order. An open-loop cell may be split into windows of time
// (fresh: a server's first seconds against its warm ones). The open-loop scenarios whose load changes over
// time are Scenario; a file with an `open-loop` or `closed-loop` line is one of these.
package dev.pumaplus.bench.loadgen;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Immutable. File format, the same line syntax as Scenario's, {@code #} starts a comment:
 * <pre>
 * name         lowrate                     # names the results directory
 * describe     free text (repeatable)      # printed at the top of the report
 * rounds       5                           # rounds over every server; the tables show medians and ranges
 * server-cpu   0                           # the CPU every server is pinned to (taskset)
 * wrk          16 1                        # the closed-loop clients (warm-ups and closed-loop cells: wrk, h2load for h2):
 *                                          # connections, threads
 * pool         16                          # open-loop keep-alive: a router-like pool of up to this many connections
 * h2-connections 4                         # open-loop h2: streams spread round-robin over this many connections
 * timeout      5s                          # per request, both clients; counted as an error
 * measure      20s                         # each cell's measured time
 * pause        2s                          # idle before each cell (after the warm-up too), not measured
 * settle       1s                          # after the ready answer, until the process count has held still this
 *                                          # long (at most 20 s); 0s: none, the first warm-up or cell starts at once
 * seed         1                           # open-loop arrivals: every server of a round faces the same ones
 * app          NAME RACKUP READY [VAR=VALUE ...]   # {app} of the server commands; READY: the path that
 *                                                  # answers 200 once the server is up; environment variables
 * setup        APP COMMAND...              # run once before the first round, in the app's environment
 * warmup       APP DURATION PATH CONNECTION       # closed loop at full speed, repeatable, in order
 * open-loop    APP PATH CONNECTION RATE... [windows T...]   # one cell per rate: Poisson arrivals at RATE per
 *                                          # second; windows: one continuous run reported in windows split at
 *                                          # each T from the cell's start (10s 30s 60s: 0-10, 10-30, 30-60,
 *                                          # 60 s-measure), the last one "warm"
 * closed-loop  APP PATH CONNECTION                # one cell: the closed-loop client at full speed
 * baseline     NAME...                     # ratios are to the first of these servers that ran
 * server       NAME KIND COMMAND...        # KIND puma-plus or null: the root is a JVM (the host); puma: all Ruby;
 *                                          # relay: bench/floor/relay.c, its root read as the host, its worker as Ruby
 * </pre>
 * CONNECTION is {@code keep-alive} (open loop: the pool; closed loop: wrk), {@code new} (a new connection
 * per request; wrk with {@code Connection: close}) or {@code h2} (HTTP/2 cleartext with prior knowledge;
 * open loop: H2Transport over h2-connections; closed loop: h2load, one stream at a time per connection).
 * A server of KIND puma speaks no HTTP/2: it skips the h2 warm-ups and cells. A server command may start
 * with {@code env VAR=VALUE ...} (env(1), which execs the server in place: its pid and session stay the
 * server's) to give that one server an environment variable.
 * Commands, rackups and environment values take Scenario's placeholders ({port}, {control},
 * {control_token}, {root}, {puma_plus}, {java}, {jar}) and {app} (the app's rackup), {out} (the results
 * directory) and {puma8} (the directory given with --puma8: a server whose command uses it runs only then).
 */
record RoundScenario(String name, String description, int rounds, int serverCpu, int wrkConnections, int wrkThreads,
    int pool, int h2Connections, long timeoutNs, long measureNs, long pauseNs, long settleNs, long seed, List<App> apps, List<Setup> setups,
    List<Warmup> warmups, List<Cell> cells, List<String> baselines, List<Scenario.ServerSpec> servers, Path source) {

  /** How a cell's requests travel: kept-alive HTTP/1.1 connections, a new connection per request, or HTTP/2 streams. */
  enum Connection {
    KEEP_ALIVE("keep-alive"), NEW("new"), H2("h2");

    final String word;

    Connection(String word) {
      this.word = word;
    }

    static Connection parse(String word) {
      for (Connection c : values()) if (c.word.equals(word)) return c;
      throw new IllegalArgumentException("connection is keep-alive, new or h2, was: " + word);
    }
  }

  /** An app the servers serve: {@code rackup} fills {app}; {@code readyPath} answers 200 once a server is up. */
  record App(String name, String rackup, String readyPath, Map<String, String> env) {}

  /** A command run once before the first round, with {@code app}'s environment (e.g. filling its database). */
  record Setup(String app, String command) {}

  /** {@code durationNs} of wrk at full speed on {@code path}, right after each server of {@code app} starts. */
  record Warmup(String app, long durationNs, String path, Connection connection) {}

  /**
   * One measured cell: open-loop at {@code rps}, or closed-loop (wrk or h2load at full speed) when {@code rps}
   * is 0. {@code windowsNs}: where an open-loop cell's run is split for the report, ns from its start,
   * increasing; empty for one window, the whole cell.
   */
  record Cell(String app, String path, Connection connection, double rps, List<Long> windowsNs) {
    Cell {
      windowsNs = List.copyOf(windowsNs);
    }

    Cell(String app, String path, Connection connection, double rps) {
      this(app, path, connection, rps, List.of());
    }

    boolean closedLoop() {
      return rps == 0;
    }

    boolean windowed() {
      return !windowsNs.isEmpty();
    }

    /** The windows of a cell measured for {@code measureNs}, in order: the last one is the warm one. */
    List<Span> windows(long measureNs) {
      List<Span> spans = new ArrayList<>();
      long from = 0;
      for (long to : windowsNs) {
        spans.add(new Span(from, to));
        from = to;
      }
      spans.add(new Span(from, measureNs));
      return spans;
    }

    /** From the start to each split: "the first 10 s", "the first 30 s", ... (the first is also a window). */
    List<Span> firsts() {
      return windowsNs.stream().map(to -> new Span(0, to)).toList();
    }

    /** Every span the runner measures: the windows, then the firsts that are no window. */
    List<Span> spans(long measureNs) {
      List<Span> spans = new ArrayList<>(windows(measureNs));
      for (Span first : firsts()) if (!spans.contains(first)) spans.add(first);
      return spans;
    }

    /** "50 rps" or "max (closed loop)". */
    String rate() {
      return closedLoop() ? "max (closed loop)" : Format.num(rps, rps % 1 == 0 ? 0 : 1) + " rps";
    }

    /** "bench /hello keep-alive 50 rps": one line per cell in the console and the report. */
    String label() {
      return app + " " + path + " " + connection.word + " " + rate();
    }
  }

  /** A stretch of a cell's run, ns from its start: [{@code fromNs}, {@code toNs}). */
  record Span(long fromNs, long toNs) {
    /** "0–10 s", "60–120 s". */
    String label() {
      return Format.seconds(fromNs).replace(" s", "") + "–" + Format.seconds(toNs);
    }
  }

  /** True when {@code file} has an {@code open-loop} or {@code closed-loop} line, i.e. is a round scenario. */
  static boolean describes(Path file) throws IOException {
    return Files.readAllLines(file).stream().map(RoundScenario::strip)
        .map(l -> l.split("\\s+")[0]).anyMatch(k -> k.equals("open-loop") || k.equals("closed-loop"));
  }

  static RoundScenario parse(Path file) throws IOException {
    String name = file.getFileName().toString().replaceFirst("\\.scenario$", "");
    StringBuilder description = new StringBuilder();
    int rounds = 5;
    int serverCpu = 0;
    int wrkConnections = 16;
    int wrkThreads = 1;
    int pool = 16;
    int h2Connections = 4;
    long timeout = Format.parseDuration("5s");
    long measure = Format.parseDuration("20s");
    long pause = 0;
    long settle = Format.parseDuration("1s");
    long seed = 1;
    List<App> apps = new ArrayList<>();
    List<Setup> setups = new ArrayList<>();
    List<Warmup> warmups = new ArrayList<>();
    List<Cell> cells = new ArrayList<>();
    List<String> baselines = new ArrayList<>();
    List<Scenario.ServerSpec> servers = new ArrayList<>();
    int lineNo = 0;
    for (String raw : Files.readAllLines(file)) {
      lineNo++;
      String line = strip(raw);
      if (line.isEmpty()) continue;
      String[] kv = line.split("\\s+", 2);
      String value = kv.length > 1 ? kv[1].trim() : "";
      String[] words = value.split("\\s+");
      try {
        switch (kv[0]) {
          case "name" -> name = value;
          case "describe" -> description.append(description.isEmpty() ? "" : " ").append(value);
          case "rounds" -> rounds = Integer.parseInt(value);
          case "server-cpu" -> serverCpu = Integer.parseInt(value);
          case "wrk" -> {
            if (words.length != 2) throw new IllegalArgumentException("wrk needs: CONNECTIONS THREADS");
            wrkConnections = Integer.parseInt(words[0]);
            wrkThreads = Integer.parseInt(words[1]);
          }
          case "pool" -> pool = Integer.parseInt(value);
          case "h2-connections" -> h2Connections = Integer.parseInt(value);
          case "timeout" -> timeout = Format.parseDuration(value);
          case "measure" -> measure = Format.parseDuration(value);
          case "pause" -> pause = Format.parseDuration(value);
          case "settle" -> settle = Format.parseDuration(value);
          case "seed" -> seed = Long.parseLong(value);
          case "app" -> {
            if (words.length < 3) throw new IllegalArgumentException("app needs: NAME RACKUP READY_PATH [VAR=VALUE ...]");
            Map<String, String> env = new LinkedHashMap<>();
            for (int i = 3; i < words.length; i++) {
              int eq = words[i].indexOf('=');
              if (eq < 1) throw new IllegalArgumentException("not VAR=VALUE: " + words[i]);
              env.put(words[i].substring(0, eq), words[i].substring(eq + 1));
            }
            apps.add(new App(words[0], words[1], words[2], Map.copyOf(env)));
          }
          case "setup" -> {
            String[] s = value.split("\\s+", 2);
            if (s.length != 2) throw new IllegalArgumentException("setup needs: APP COMMAND...");
            setups.add(new Setup(app(apps, s[0]), s[1]));
          }
          case "warmup" -> {
            if (words.length != 4) throw new IllegalArgumentException("warmup needs: APP DURATION PATH keep-alive|new|h2");
            warmups.add(new Warmup(app(apps, words[0]), Format.parseDuration(words[1]), words[2], Connection.parse(words[3])));
          }
          case "open-loop" -> {
            if (words.length < 4) throw new IllegalArgumentException("open-loop needs: APP PATH keep-alive|new|h2 RATE... [windows T...]");
            int split = List.of(words).indexOf("windows");
            int ratesEnd = split < 0 ? words.length : split;
            if (ratesEnd < 4) throw new IllegalArgumentException("open-loop needs a rate before 'windows'");
            List<Long> windows = new ArrayList<>();
            for (int i = ratesEnd + 1; i < words.length; i++) {
              long at = Format.parseDuration(words[i]);
              if (at <= (windows.isEmpty() ? 0 : windows.get(windows.size() - 1))) {
                throw new IllegalArgumentException("windows split at increasing times > 0, was: " + value.substring(value.indexOf("windows")));
              }
              windows.add(at);
            }
            if (split >= 0 && windows.isEmpty()) throw new IllegalArgumentException("'windows' needs the times to split at");
            for (int i = 3; i < ratesEnd; i++) {
              double rps = Double.parseDouble(words[i]);
              if (!(rps > 0)) throw new IllegalArgumentException("a rate must be > 0, was: " + words[i]);
              cells.add(new Cell(app(apps, words[0]), words[1], Connection.parse(words[2]), rps, windows));
            }
          }
          case "closed-loop" -> {
            if (words.length != 3) throw new IllegalArgumentException("closed-loop needs: APP PATH keep-alive|new|h2");
            cells.add(new Cell(app(apps, words[0]), words[1], Connection.parse(words[2]), 0));
          }
          case "baseline" -> baselines.addAll(List.of(words));
          case "server" -> {
            String[] s = value.split("\\s+", 3);
            if (s.length != 3) throw new IllegalArgumentException("server needs: NAME KIND COMMAND...");
            servers.add(new Scenario.ServerSpec(s[0], s[1], s[2]));
          }
          default -> throw new IllegalArgumentException("unknown directive '" + kv[0] + "'");
        }
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(file + ":" + lineNo + ": " + e.getMessage(), e);
      }
    }
    if (cells.isEmpty()) throw new IllegalArgumentException(file + ": no 'open-loop' or 'closed-loop' line");
    if (servers.isEmpty()) throw new IllegalArgumentException(file + ": no 'server' line");
    if (rounds < 1) throw new IllegalArgumentException(file + ": rounds must be >= 1");
    if (h2Connections < 1) throw new IllegalArgumentException(file + ": h2-connections must be >= 1");
    for (Cell c : cells) {
      if (c.windowed() && c.windowsNs().get(c.windowsNs().size() - 1) >= measure) {
        throw new IllegalArgumentException(file + ": " + c.label() + ": its windows must split before the end of 'measure' ("
            + Format.seconds(measure) + ")");
      }
    }
    for (String b : baselines) {
      if (servers.stream().noneMatch(s -> s.name().equals(b))) throw new IllegalArgumentException(file + ": baseline " + b + " is no server");
    }
    return new RoundScenario(name, description.toString(), rounds, serverCpu, wrkConnections, wrkThreads, pool, h2Connections, timeout, measure,
        pause, settle, seed, List.copyOf(apps), List.copyOf(setups), List.copyOf(warmups), List.copyOf(cells), List.copyOf(baselines),
        List.copyOf(servers), file);
  }

  private static String app(List<App> apps, String name) {
    if (apps.stream().noneMatch(a -> a.name().equals(name))) throw new IllegalArgumentException("no app named " + name + " (an 'app' line comes first)");
    return name;
  }

  private static String strip(String raw) {
    return raw.replaceFirst("\\s+#.*$", "").replaceFirst("^#.*$", "").trim();
  }

  /** The app named {@code name}. */
  App app(String name) {
    return apps.stream().filter(a -> a.name().equals(name)).findFirst().orElseThrow();
  }

  /** The apps that have a cell, in the file's order: one server process per app, server and round. */
  List<App> measuredApps() {
    return apps.stream().filter(a -> cells.stream().anyMatch(c -> c.app().equals(a.name()))).toList();
  }

  /**
   * True when the server's root process is read as the host: a JVM (puma-plus's host, the null server), or the C relay
   * whose one thread is the front of a two-process request path.
   */
  static boolean hasHost(Scenario.ServerSpec server) {
    return server.kind().equals("puma-plus") || server.kind().equals("null") || server.kind().equals("relay");
  }

  /**
   * True when {@code server} can carry {@code connection}: everything but h2 on a server of KIND puma (puma 5.6
   * and 8 speak HTTP/1.1 only) or relay. A server that cannot skips those warm-ups and cells.
   */
  static boolean speaks(Scenario.ServerSpec server, Connection connection) {
    return connection != Connection.H2 || !(server.kind().equals("puma") || server.kind().equals("relay"));
  }

  /** True when the server's command names {puma8}: it runs only when --puma8 DIR is given. */
  static boolean needsPuma8(Scenario.ServerSpec server) {
    return server.command().contains("{puma8}");
  }

  /**
   * The same with other rounds, warm-up and measured durations (a quick run); null keeps the file's.
   * {@code warmupNs} replaces the duration of every warm-up line; a shorter {@code measureNs} drops the
   * window splits at or after it (the last window left is the warm one).
   */
  RoundScenario with(Integer rounds, Long warmupNs, Long measureNs) {
    if (rounds != null && rounds < 1) throw new IllegalArgumentException("--rounds must be >= 1");
    List<Warmup> w = warmupNs == null ? warmups
        : warmups.stream().map(x -> new Warmup(x.app(), warmupNs, x.path(), x.connection())).toList();
    long measure = measureNs == null ? this.measureNs : measureNs;
    List<Cell> c = cells.stream()
        .map(x -> new Cell(x.app(), x.path(), x.connection(), x.rps(), x.windowsNs().stream().filter(at -> at < measure).toList())).toList();
    return new RoundScenario(name, description, rounds == null ? this.rounds : rounds, serverCpu, wrkConnections, wrkThreads, pool,
        h2Connections, timeoutNs, measure, pauseNs, settleNs, seed, apps, setups, w, c, baselines, servers, source);
  }

  /**
   * Only the named servers (in the file's order) and only the cells that match every non-empty filter: their
   * app, path, connection word and rate (a closed-loop cell has no rate: a rate filter leaves it out). A
   * name that matches nothing is an error, and so is a filter that leaves no cell.
   */
  RoundScenario only(List<String> serverNames, List<String> appNames, List<String> paths, List<String> connections, List<Double> rates) {
    for (String n : serverNames) {
      if (servers.stream().noneMatch(s -> s.name().equals(n))) throw new IllegalArgumentException("no server named " + n);
    }
    checkKnown("app", appNames, cells.stream().map(Cell::app).toList());
    checkKnown("path", paths, cells.stream().map(Cell::path).toList());
    checkKnown("connection", connections, cells.stream().map(c -> c.connection().word).toList());
    checkKnown("rate", rates.stream().map(RoundScenario::rateWord).toList(),
        cells.stream().filter(c -> !c.closedLoop()).map(c -> rateWord(c.rps())).toList());
    Predicate<Cell> keep = c -> (appNames.isEmpty() || appNames.contains(c.app()))
        && (paths.isEmpty() || paths.contains(c.path()))
        && (connections.isEmpty() || connections.contains(c.connection().word))
        && (rates.isEmpty() || !c.closedLoop() && rates.contains(c.rps()));
    List<Cell> kept = cells.stream().filter(keep).toList();
    if (kept.isEmpty()) throw new IllegalArgumentException("no cell is left after --apps, --paths, --connections and --rates");
    List<Scenario.ServerSpec> keptServers = serverNames.isEmpty() ? servers : servers.stream().filter(s -> serverNames.contains(s.name())).toList();
    return new RoundScenario(name, description, rounds, serverCpu, wrkConnections, wrkThreads, pool, h2Connections, timeoutNs, measureNs,
        pauseNs, settleNs, seed, apps, setups, warmups, kept, baselines, keptServers, source);
  }

  private static void checkKnown(String what, List<String> wanted, List<String> known) {
    for (String w : wanted) {
      if (!known.contains(w)) throw new IllegalArgumentException("no cell has " + what + " " + w + " (there are: " + known.stream().distinct().toList() + ")");
    }
  }

  private static String rateWord(double rps) {
    return rps % 1 == 0 ? Long.toString((long) rps) : Double.toString(rps);
  }
}
