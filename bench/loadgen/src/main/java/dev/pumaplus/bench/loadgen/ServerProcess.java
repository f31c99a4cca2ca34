// One server under test, started by the runner for one measured run: pinned to the servers' CPU with
// taskset, in its own session (setsid) so its whole process tree can be found, measured and stopped.
package dev.pumaplus.bench.loadgen;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Not thread-safe; owned by the runner's thread. */
final class ServerProcess implements AutoCloseable {
  private static final long BOOT_TIMEOUT_MS = 120_000;
  private static final long STOP_TIMEOUT_MS = 15_000;

  private final Process process;
  private final Path log;
  private final int port;
  private final String readyPath;

  private ServerProcess(Process process, Path log, int port, String readyPath) {
    this.process = process;
    this.log = log;
    this.port = port;
    this.readyPath = readyPath;
  }

  /**
   * Starts {@code command} (already expanded, split on spaces) under {@code setsid taskset -c cpu}, after
   * {@code prefix} (a wrapper that execs the rest, keeping the pid: CpuAccount's cgroup join; empty for
   * none), with {@code env} added to the harness's environment, output to {@code log}; and waits until GET
   * {@code readyPath} on {@code port} answers 200.
   */
  static ServerProcess start(List<String> prefix, String command, int cpu, Path workDir, Map<String, String> env, Path log, int port,
      String readyPath) throws IOException, InterruptedException {
    List<String> argv = new ArrayList<>(prefix);
    argv.addAll(List.of("setsid", "taskset", "-c", Integer.toString(cpu)));
    argv.addAll(List.of(command.trim().split("\\s+")));
    ProcessBuilder builder = new ProcessBuilder(argv).directory(workDir.toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    builder.environment().putAll(env);
    ServerProcess server = new ServerProcess(builder.start(), log, port, readyPath);
    try {
      server.awaitHealthy();
    } catch (IOException | RuntimeException | InterruptedException e) {
      server.close();
      throw e;
    }
    return server;
  }

  /** The root of the server's process tree (and its session id). */
  long pid() {
    return process.pid();
  }

  private void awaitHealthy() throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BOOT_TIMEOUT_MS);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) throw new IOException("server exited with " + process.exitValue() + " before it was healthy:\n" + logTail());
      if (healthy()) return;
      Thread.sleep(100);
    }
    throw new IOException("server not answering " + readyPath + " within " + BOOT_TIMEOUT_MS / 1000 + " s:\n" + logTail());
  }

  private boolean healthy() {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
      socket.setSoTimeout(2000);
      OutputStream out = socket.getOutputStream();
      out.write(("GET " + readyPath + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      byte[] head = in.readNBytes(12);
      return new String(head, StandardCharsets.US_ASCII).startsWith("HTTP/1.1 200");
    } catch (IOException e) {
      return false;
    }
  }

  String logTail() {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException | java.io.UncheckedIOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  /**
   * TERM to the root (the server's own graceful stop), then KILL to whatever is left of its session after
   * {@code STOP_TIMEOUT_MS}. Returns when no process of the session is left (or after 5 more seconds).
   */
  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(STOP_TIMEOUT_MS, TimeUnit.MILLISECONDS)) process.destroyForcibly();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    List<Long> left = ProcessTree.session(pid());
    while (!left.isEmpty() && System.nanoTime() < deadline) {
      for (long pid : left) ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
      Thread.sleep(100);
      left = ProcessTree.session(pid());
    }
  }
}
