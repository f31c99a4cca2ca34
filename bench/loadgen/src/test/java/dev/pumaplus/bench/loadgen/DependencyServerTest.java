// The slow dependency queues as the scenario's `dependency K HOLD` line says: K calls held HOLD at once, the
// rest served in arrival order as held calls end, a caller that left while waiting never served, and its
// counts (in flight, completed, peak) are what a caller saw. Real sockets on loopback.
package dev.pumaplus.bench.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class DependencyServerTest {
  private static final byte[] CALL = "GET /call HTTP/1.1\r\nHost: dep\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  /** A connected socket with its call not yet written. */
  private static Socket connect(DependencyServer server) throws IOException {
    Socket socket = new Socket();
    socket.connect(new InetSocketAddress("127.0.0.1", server.port()), 2000);
    socket.setSoTimeout(5000);
    return socket;
  }

  /** Reads one whole response (the body is "ok\n", its length known) and returns its status line. */
  private static String readResponse(Socket socket) throws IOException {
    InputStream in = socket.getInputStream();
    StringBuilder text = new StringBuilder();
    while (!text.toString().endsWith("\r\n\r\nok\n")) {
      int b = in.read();
      if (b < 0) throw new IOException("closed after: " + text);
      text.append((char) b);
    }
    return text.substring(0, text.indexOf("\r\n"));
  }

  @Test
  void twentyFiveCallsAtTwentyAtOnceServeTheFirstTwentyInOneHoldAndTheLastFiveInTwo() throws Exception {
    long holdMs = 100; // the scenario's 40 ms, widened so that a busy machine's scheduling stays well inside it
    try (DependencyServer server = new DependencyServer(0, 20, TimeUnit.MILLISECONDS.toNanos(holdMs))) {
      List<Socket> sockets = new ArrayList<>();
      for (int i = 0; i < 25; i++) sockets.add(connect(server));
      long start = System.nanoTime();
      for (Socket s : sockets) s.getOutputStream().write(CALL);
      long[] doneMs = new long[25];
      for (int i = 0; i < 25; i++) {
        assertEquals("HTTP/1.1 200 OK", readResponse(sockets.get(i)));
        doneMs[i] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      }
      for (int i = 0; i < 20; i++) {
        assertTrue(doneMs[i] >= holdMs && doneMs[i] < 2 * holdMs, "call " + i + " held once: " + doneMs[i] + " ms");
      }
      for (int i = 20; i < 25; i++) {
        assertTrue(doneMs[i] >= 2 * holdMs && doneMs[i] < 3 * holdMs, "call " + i + " waited a hold, then held: " + doneMs[i] + " ms");
      }
      assertEquals(new DependencyServer.Counts(0, 25, 25), server.counts());
      assertEquals(20 * 1e9 / TimeUnit.MILLISECONDS.toNanos(holdMs), server.capacityPerSecond(), 1e-9);
      for (Socket s : sockets) s.close();
    }
  }

  @Test
  void aKeepAliveConnectionCarriesOneCallAfterAnotherAndThePeakRestartsFromTheCallsInFlight() throws Exception {
    try (DependencyServer server = new DependencyServer(0, 2, TimeUnit.MILLISECONDS.toNanos(10));
         Socket a = connect(server); Socket b = connect(server)) {
      a.getOutputStream().write(CALL);
      b.getOutputStream().write(CALL);
      readResponse(a);
      readResponse(b);
      assertEquals(2, server.counts().peakInFlight());
      server.restartPeak();
      for (int i = 0; i < 3; i++) {
        a.getOutputStream().write(CALL);
        assertEquals("HTTP/1.1 200 OK", readResponse(a));
      }
      assertEquals(new DependencyServer.Counts(0, 5, 1), server.counts());
    }
  }

  @Test
  void aCallerThatLeavesWhileWaitingIsNeverServedAndLeavesTheCountsRight() throws Exception {
    long holdMs = 150;
    try (DependencyServer server = new DependencyServer(0, 1, TimeUnit.MILLISECONDS.toNanos(holdMs));
         Socket held = connect(server); Socket leaver = connect(server); Socket next = connect(server)) {
      long start = System.nanoTime();
      held.getOutputStream().write(CALL);
      leaver.getOutputStream().write(CALL);
      next.getOutputStream().write(CALL);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
      while (server.counts().inFlight() < 3 && System.nanoTime() < deadline) Thread.sleep(1);
      assertEquals(3, server.counts().inFlight());
      leaver.close();
      readResponse(held);
      readResponse(next);
      long nextMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertTrue(nextMs >= 2 * holdMs && nextMs < 3 * holdMs, "the leaver's turn was skipped: " + nextMs + " ms");
      assertEquals(new DependencyServer.Counts(0, 2, 3), server.counts());
    }
  }
}
