// The open-loop generator: sends each request at its intended start, drawn from the Poisson clock, whether or
// not earlier requests have been answered, and measures its latency from that intended start. Beside the
// load it can run a health probe at a fixed interval, like a load balancer's health check.
package dev.pumaplus.bench.loadgen;

import io.netty.channel.EventLoop;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;

/**
 * One measured run against one address. {@link #run} blocks the calling thread, which becomes the arrival
 * clock: it parks until each intended start and hands the request to the event loop. If the clock thread or
 * the event loop falls behind, the request goes out late but its latency still counts from the intended
 * start, so the harness's own delays show up in the numbers instead of hiding the server's.
 */
public final class LoadGenerator {

  /** A health probe: GET {@code path} every {@code intervalNs} on a new connection, failed after {@code timeoutNs}. */
  public record Probe(String path, long intervalNs, long timeoutNs) {}

  /**
   * What to send: {@code path} on the Poisson {@code schedule} (seeded), each request failed as TIMEOUT
   * {@code timeoutNs} after its intended start, over {@code mode}; {@code probe} may be null.
   */
  public record Settings(String path, RateSchedule schedule, long seed, long timeoutNs, ConnectionMode mode, Probe probe) {}

  /**
   * What happened. Record times are ns from {@code originNanos} (a {@code System.nanoTime} value), the
   * schedule's start. {@code connections} holds the generator's open connections, sampled each second.
   */
  public record Result(long originNanos, long scheduleNs, List<RequestRecord> load, List<RequestRecord> probes,
      List<Integer> connections, boolean usedEpoll) {}

  private static final long START_DELAY_NS = TimeUnit.MILLISECONDS.toNanos(50);
  private static final long DRAIN_GRACE_NS = TimeUnit.SECONDS.toNanos(5);

  private LoadGenerator() {}

  /** Runs {@code settings} against {@code address}; returns when every request has ended (or timed out). */
  public static Result run(ClientLoop clientLoop, InetSocketAddress address, Settings settings) throws InterruptedException {
    return run(clientLoop, address, settings, origin -> {});
  }

  /**
   * The same, telling {@code atOrigin} the schedule's origin (the {@code System.nanoTime} value the records'
   * times count from) before the first arrival, on the calling thread: for reading something at fixed offsets
   * of the run from another thread. It must return at once; the first arrival is at least 50 ms away.
   */
  public static Result run(ClientLoop clientLoop, InetSocketAddress address, Settings settings, LongConsumer atOrigin)
      throws InterruptedException {
    EventLoop loop = clientLoop.loop();
    long timeoutMs = TimeUnit.NANOSECONDS.toMillis(settings.timeoutNs());
    Transport transport = onLoop(loop, () -> settings.mode().open(clientLoop, address, timeoutMs));
    Transport probeTransport = settings.probe() == null ? null
        : onLoop(loop, () -> new NewConnectionTransport(clientLoop, address, TimeUnit.NANOSECONDS.toMillis(settings.probe().timeoutNs())));
    AtomicLong finished = new AtomicLong();
    List<RequestRecord> load = new ArrayList<>();
    List<RequestRecord> probes = Collections.synchronizedList(new ArrayList<>());
    List<Integer> connections = Collections.synchronizedList(new ArrayList<>());
    long scheduleNs = settings.schedule().totalNs();
    long origin = System.nanoTime() + START_DELAY_NS;
    atOrigin.accept(origin);

    if (settings.probe() != null) {
      Probe probe = settings.probe();
      int seq = 0;
      for (long at = probe.intervalNs() / 2; at < scheduleNs; at += probe.intervalNs()) {
        RequestRecord record = new RequestRecord(seq++, RequestRecord.Kind.PROBE, at);
        probes.add(record);
        Exchange exchange = new Exchange(record, probe.path(), origin, finished::incrementAndGet);
        loop.schedule(() -> start(loop, probeTransport, exchange, probe.timeoutNs()), origin + at - System.nanoTime(), TimeUnit.NANOSECONDS);
      }
    }
    for (long at = TimeUnit.SECONDS.toNanos(1); at <= scheduleNs; at += TimeUnit.SECONDS.toNanos(1)) {
      loop.schedule(() -> connections.add(transport.openConnections()), origin + at - System.nanoTime(), TimeUnit.NANOSECONDS);
    }

    PoissonArrivals arrivals = new PoissonArrivals(settings.schedule(), settings.seed());
    int seq = 0;
    for (long at = arrivals.next(); at >= 0; at = arrivals.next()) {
      long wake = origin + at;
      for (long wait = wake - System.nanoTime(); wait > 0; wait = wake - System.nanoTime()) {
        LockSupport.parkNanos(wait);
      }
      RequestRecord record = new RequestRecord(seq++, RequestRecord.Kind.LOAD, at);
      load.add(record);
      Exchange exchange = new Exchange(record, settings.path(), origin, finished::incrementAndGet);
      loop.execute(() -> start(loop, transport, exchange, settings.timeoutNs()));
    }

    long expected = load.size() + probes.size();
    long deadline = Math.max(System.nanoTime(), origin + scheduleNs) + settings.timeoutNs() + DRAIN_GRACE_NS;
    while (finished.get() < expected && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    onLoop(loop, () -> {
      transport.close();
      if (probeTransport != null) probeTransport.close();
      return null;
    });
    return new Result(origin, scheduleNs, load, List.copyOf(probes), List.copyOf(connections), clientLoop.usesEpoll());
  }

  private static void start(EventLoop loop, Transport transport, Exchange exchange, long timeoutNs) {
    long remaining = exchange.record.intendedNs + timeoutNs - exchange.now();
    if (remaining <= 0) {
      exchange.expire();
      return;
    }
    exchange.timeoutFuture(loop.schedule(exchange::expire, remaining, TimeUnit.NANOSECONDS));
    transport.submit(exchange);
  }

  private static <T> T onLoop(EventLoop loop, java.util.concurrent.Callable<T> task) throws InterruptedException {
    try {
      return loop.submit(task).get();
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
  }
}
