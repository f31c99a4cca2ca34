// The generator's claims, against real sockets on 127.0.0.1: it keeps the offered rate, charges queueing to
// latency (no coordinated omission), counts a timeout as an error, and each connection mode uses
// connections the way its name says.
package dev.pumaplus.bench.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class LoadGeneratorTest {
  private static final long S = TimeUnit.SECONDS.toNanos(1);
  private static ClientLoop loop;

  @BeforeAll
  static void startLoop() {
    loop = new ClientLoop();
  }

  @AfterAll
  static void stopLoop() {
    loop.close();
  }

  private static LoadGenerator.Result run(InetSocketAddress address, String path, RateSchedule schedule, long timeoutMs,
      ConnectionMode mode, LoadGenerator.Probe probe) throws InterruptedException {
    return LoadGenerator.run(loop, address, new LoadGenerator.Settings(path, schedule, 9, TimeUnit.MILLISECONDS.toNanos(timeoutMs), mode, probe));
  }

  @Test
  void everyArrivalOfTheClockIsSentAndAnsweredByTheNullServer() throws Exception {
    // The 1% rate claim is measured by bench/scenarios/floor.scenario on a quiet machine; here, on a build
    // machine that may be busy, the claim is that nothing is dropped or invented between clock and wire.
    try (NullServer server = new NullServer(0)) {
      InetSocketAddress address = new InetSocketAddress("127.0.0.1", server.port());
      run(address, "/", RateSchedule.constant(300, S), 5000, ConnectionMode.NEW, null); // warm-up
      RateSchedule schedule = RateSchedule.constant(500, 3 * S);
      LoadGenerator.Result result = run(address, "/", schedule, 5000, ConnectionMode.NEW, null);
      PoissonArrivals clock = new PoissonArrivals(schedule, 9);
      int drawn = 0;
      while (clock.next() >= 0) drawn++;
      RunStats stats = RunStats.of(schedule, result, Long.MAX_VALUE);
      assertEquals(drawn, stats.sent(), stats.line());
      assertEquals(drawn, stats.ok(), stats.line());
      assertTrue(result.load().stream().allMatch(r -> r.sentNs >= r.intendedNs), "never sent before its intended start");
    }
  }

  @Test
  void theCallerLearnsTheOriginTheRecordsCountFromBeforeTheFirstArrival() throws Exception {
    try (NullServer server = new NullServer(0)) {
      InetSocketAddress address = new InetSocketAddress("127.0.0.1", server.port());
      long[] told = {0, 0};
      long before = System.nanoTime();
      LoadGenerator.Result result = LoadGenerator.run(loop, address, new LoadGenerator.Settings("/", RateSchedule.constant(50, S), 9,
          TimeUnit.SECONDS.toNanos(5), ConnectionMode.NEW, null), origin -> {
            told[0] = origin;
            told[1] = System.nanoTime();
          });
      assertEquals(result.originNanos(), told[0]);
      assertTrue(told[0] > told[1] && told[1] >= before, "told before the schedule's origin, which is still ahead");
      assertTrue(result.load().stream().allMatch(r -> r.sentNs >= r.intendedNs && r.intendedNs >= 0), "every arrival after the origin");
    }
  }

  @Test
  void waitingForABusyConnectionIsChargedToLatency() throws Exception {
    // One connection, a server that takes 100 ms per request, 20 rps offered: twice what it can serve. A
    // closed-loop client would report ~100 ms per request; from the intended start the backlog shows.
    try (QueueingServer server = new QueueingServer(100)) {
      RateSchedule schedule = RateSchedule.constant(20, 2 * S);
      LoadGenerator.Result result = run(server.address(), "/", schedule, 20_000, new ConnectionMode(ConnectionMode.Kind.POOL, 1), null);
      RunStats stats = RunStats.of(schedule, result, Long.MAX_VALUE);
      assertEquals(0, stats.errors(), stats.line());
      assertTrue(stats.maxMs() > 800, "the last requests waited for the ones before them: " + stats.line());
      RequestRecord last = result.load().get(result.load().size() - 1);
      assertTrue(last.latencyNs() >= last.doneNs - last.sentNs, "latency counts from the intended start, not from the send");
      assertTrue(last.sendLagNs() > TimeUnit.MILLISECONDS.toNanos(300), "the pool held the last request back");
      assertEquals(1, server.connectionsAccepted());
    }
  }

  @Test
  void aRequestWithoutAnswerTimesOutAndCountsAsAnError() throws Exception {
    try (QueueingServer server = new QueueingServer(-1)) {
      RateSchedule schedule = RateSchedule.constant(20, S);
      LoadGenerator.Result result = run(server.address(), "/", schedule, 300, ConnectionMode.NEW, null);
      RunStats stats = RunStats.of(schedule, result, Long.MAX_VALUE);
      assertEquals(stats.sent(), stats.timeouts(), stats.line());
      assertEquals(stats.sent(), stats.errors(), stats.line());
      for (RequestRecord r : result.load()) {
        assertEquals(Outcome.TIMEOUT, r.outcome);
        assertTrue(r.latencyNs() >= TimeUnit.MILLISECONDS.toNanos(300) && r.latencyNs() < TimeUnit.MILLISECONDS.toNanos(3300),
            "ends at its timeout: " + r.latencyNs() / 1e6 + " ms");
      }
    }
  }

  @Test
  void routerPoolOpensUpToItsLimitThenQueuesRequestsForTheNextFreeConnection() throws Exception {
    // 50 ms per request, serialized by the server; 40 rps for 2 s over a pool of 3: the pool fills, then
    // requests wait for a connection; every request is eventually answered on one of the 3.
    try (QueueingServer server = new QueueingServer(50)) {
      RateSchedule schedule = RateSchedule.constant(40, 2 * S);
      LoadGenerator.Result result = run(server.address(), "/", schedule, 20_000, new ConnectionMode(ConnectionMode.Kind.POOL, 3), null);
      RunStats stats = RunStats.of(schedule, result, Long.MAX_VALUE);
      assertEquals(0, stats.errors(), stats.line());
      assertEquals(3, server.connectionsAccepted());
      assertEquals(result.load().size(), server.requestsReceived());
    }
  }

  @Test
  void newConnectionModeOpensOneConnectionPerRequest() throws Exception {
    try (QueueingServer server = new QueueingServer(1)) {
      RateSchedule schedule = RateSchedule.constant(50, S);
      LoadGenerator.Result result = run(server.address(), "/", schedule, 5000, ConnectionMode.NEW, null);
      assertEquals(0, RunStats.of(schedule, result, Long.MAX_VALUE).errors());
      assertEquals(result.load().size(), server.connectionsAccepted());
    }
  }

  @Test
  void h2ModeCarriesEveryRequestAsAStreamOfOneConnection() throws Exception {
    try (NullServer server = new NullServer(0)) {
      InetSocketAddress address = new InetSocketAddress("127.0.0.1", server.port());
      ConnectionMode h2 = new ConnectionMode(ConnectionMode.Kind.H2, 1);
      run(address, "/hello", RateSchedule.constant(100, S), 5000, h2, null); // warm-up
      RateSchedule schedule = RateSchedule.constant(100, 2 * S);
      LoadGenerator.Result result = run(address, "/hello", schedule, 5000, h2, null);
      RunStats stats = RunStats.of(schedule, result, Long.MAX_VALUE);
      assertEquals(0, stats.errors(), stats.line());
      assertTrue(result.load().stream().allMatch(r -> r.status == 200 && r.bytes == 3));
    }
  }

  @Test
  void h2ModeQueuesABurstBeyondTheServersConcurrentStreamLimitInsteadOfFailingIt() throws Exception {
    // 3,000 rps from a cold start piles up hundreds of requests at once, past Netty's default limit of 100
    // concurrent streams; opening stream 101 anyway gets the connection closed for a reset flood.
    try (NullServer server = new NullServer(0)) {
      RateSchedule schedule = RateSchedule.constant(3000, S);
      LoadGenerator.Result result = run(new InetSocketAddress("127.0.0.1", server.port()), "/hello", schedule, 20_000,
          new ConnectionMode(ConnectionMode.Kind.H2, 1), null);
      RunStats stats = RunStats.of(schedule, result, Long.MAX_VALUE);
      assertEquals(0, stats.errors(), stats.line());
    }
  }

  @Test
  void healthProbeRunsBesideTheLoadOncePerInterval() throws Exception {
    try (NullServer server = new NullServer(0)) {
      RateSchedule schedule = RateSchedule.constant(50, 3 * S);
      LoadGenerator.Result result = run(new InetSocketAddress("127.0.0.1", server.port()), "/", schedule, 5000, ConnectionMode.NEW,
          new LoadGenerator.Probe("/health", S, 2 * S));
      List<RequestRecord> probes = result.probes();
      assertEquals(3, probes.size());
      assertTrue(probes.stream().allMatch(p -> p.outcome == Outcome.OK));
      assertEquals(0, RunStats.of(schedule, result, Long.MAX_VALUE).probeFailures());
    }
  }
}
