// Watches the server during a measured run, once a second: its process tree (count, memory), for
// puma-plus its own queue metrics from the control app's /stats (`queue.windows.1s`, and with fiber slots
// `queue.concurrency_limit`), and, in a scenario with a `dependency` line, the dependency's calls in flight
// and completed. puma has no queue numbers to give; its columns stay n/a.
package dev.pumaplus.bench.loadgen;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** Runs on its own scheduler thread between {@link #start} and {@link #close}. */
final class ServerSampler implements AutoCloseable {
  /**
   * /stats at one moment: queue p95 over the last completed second (ms), requests waiting, live slots,
   * requests dropped since start because their client went away while they waited, and the concurrency
   * limit in force (fiber slots only) (-1: unknown or none).
   */
  record QueueSample(long atNanos, double queueP95Ms, int depth, int liveSlots, long dropped, int concurrencyLimit) {}

  /** The dependency at one moment: calls in flight (held + waiting) and completed since it started. */
  record DependencySample(long atNanos, int inFlight, long completed) {}

  private static final ObjectMapper JSON = new ObjectMapper();

  private final long sid;
  private final URI stats;
  private final HttpClient http;
  private final List<ProcessTree.Sample> processes = Collections.synchronizedList(new ArrayList<>());
  private final List<QueueSample> queue = Collections.synchronizedList(new ArrayList<>());
  private final DependencyServer dependency;
  private final List<DependencySample> dependencySamples = Collections.synchronizedList(new ArrayList<>());
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "server-sampler");
    t.setDaemon(true);
    return t;
  });

  /** {@code stats}: the server's /stats URL, or null when it has none; {@code dependency}: null for none. */
  ServerSampler(long sid, URI stats, DependencyServer dependency) {
    this.sid = sid;
    this.stats = stats;
    this.dependency = dependency;
    this.http = stats == null ? null : HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();
  }

  void start() {
    scheduler.scheduleAtFixedRate(this::sample, 0, 1, TimeUnit.SECONDS);
  }

  private void sample() {
    if (dependency != null) {
      DependencyServer.Counts c = dependency.counts();
      dependencySamples.add(new DependencySample(System.nanoTime(), c.inFlight(), c.completed()));
    }
    processes.add(ProcessTree.sample(sid));
    if (stats == null) return;
    try {
      HttpResponse<String> response = http.send(HttpRequest.newBuilder(stats).timeout(Duration.ofMillis(900)).build(),
          HttpResponse.BodyHandlers.ofString());
      JsonNode q = JSON.readTree(response.body()).path("queue");
      JsonNode second = q.path("windows").path("1s");
      double p95 = second.path("queue_p95_ms").isNumber() ? second.path("queue_p95_ms").asDouble() : Double.NaN;
      queue.add(new QueueSample(System.nanoTime(), p95, q.path("depth").asInt(-1), q.path("live_slots").asInt(-1),
          q.path("dropped").asLong(-1), limit(q)));
    } catch (Exception e) {
      queue.add(new QueueSample(System.nanoTime(), Double.NaN, -1, -1, -1, -1));
    }
  }

  /** The limit in force, -1 when /stats shows none (absent or null: thread slots, or no limit yet). */
  private static int limit(JsonNode queue) {
    JsonNode limit = queue.path("concurrency_limit");
    return limit.isNumber() ? limit.asInt() : -1;
  }

  List<ProcessTree.Sample> processes() {
    return List.copyOf(processes);
  }

  /** Empty when the server has no /stats. */
  List<QueueSample> queue() {
    return List.copyOf(queue);
  }

  /** Empty without a dependency. */
  List<DependencySample> dependency() {
    return List.copyOf(dependencySamples);
  }

  boolean hasStats() {
    return stats != null;
  }

  @Override
  public void close() throws InterruptedException {
    scheduler.shutdownNow();
    scheduler.awaitTermination(5, TimeUnit.SECONDS);
  }
}
