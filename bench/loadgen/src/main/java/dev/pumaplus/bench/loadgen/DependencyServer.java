// The slow dependency of the slow-dependency benchmark (scenario line `dependency K HOLD`, issue 31): a local
// HTTP/1.1 service the bench app's /dep calls from inside the request (worker → app → this → app → respond).
// It serves at most K calls at once, each held HOLD (a timer, no CPU); further calls wait in FIFO order, so
// a call's latency is HOLD up to K calls in flight and rises in proportion beyond, and its capacity is
// K / HOLD calls per second whatever the concurrency: a database or an API with K workers.
package dev.pumaplus.bench.loadgen;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * Threading: one event-loop thread owns every connection, the K held calls, the FIFO of waiting calls and
 * the counters, so none of them needs a lock; {@link #counts} reads the counters from any thread (volatile,
 * written only on that thread). {@code GET /call} answers 200 "ok\n" after its hold; any other path 404 at
 * once. A waiting call whose connection closed is dropped when it reaches the head of the FIFO; a held
 * call keeps its place until its hold ends (the service does not notice a caller leaving).
 * {@link #close} stops it synchronously.
 */
public final class DependencyServer implements AutoCloseable {
  private static final byte[] BODY = "ok\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] NOT_FOUND = "only GET /call\n".getBytes(StandardCharsets.US_ASCII);

  /**
   * The service at one moment: calls in flight (held + waiting), calls completed since start, and the most
   * in flight at once since start or since the last {@link #restartPeak}.
   */
  public record Counts(int inFlight, long completed, int peakInFlight) {}

  private final int concurrency;
  private final long holdNs;
  private final LoopbackListener listener;
  private final EventLoop loop;
  private final ArrayDeque<Call> waiting = new ArrayDeque<>();
  private int held;
  private volatile int inFlight;
  private volatile long completed;
  private volatile int peakInFlight;

  /** A call that has been asked for and not yet answered. */
  private record Call(ChannelHandlerContext ctx, boolean keepAlive) {}

  /**
   * Listens on 127.0.0.1:{@code port} (0: any free port) and serves at most {@code concurrency} calls at once,
   * each held {@code holdNs}.
   */
  public DependencyServer(int port, int concurrency, long holdNs) throws InterruptedException {
    if (concurrency < 1) throw new IllegalArgumentException("concurrency must be >= 1: " + concurrency);
    if (holdNs < 0) throw new IllegalArgumentException("hold must be >= 0 ns: " + holdNs);
    this.concurrency = concurrency;
    this.holdNs = holdNs;
    listener = new LoopbackListener(port,
        () -> new ChannelHandler[] {new HttpServerCodec(), new HttpObjectAggregator(1 << 16), new CallHandler()});
    loop = listener.loop();
  }

  public int port() {
    return listener.port();
  }

  /** "127.0.0.1:PORT": what the scenario's {dependency} placeholder becomes. */
  public String hostPort() {
    return "127.0.0.1:" + port();
  }

  /** Calls per second it serves at most: K / HOLD. */
  public double capacityPerSecond() {
    return holdNs == 0 ? Double.POSITIVE_INFINITY : concurrency * 1e9 / holdNs;
  }

  /** Any thread. */
  public Counts counts() {
    return new Counts(inFlight, completed, peakInFlight);
  }

  /**
   * Starts the peak over again from the calls in flight now (the harness calls it as a measured run starts,
   * so the warm-up's peak does not count). Any thread; returns once the event loop has done it.
   */
  public void restartPeak() {
    loop.submit(() -> peakInFlight = inFlight).syncUninterruptibly();
  }

  @Override
  public void close() {
    listener.close();
  }

  /**
   * {@code java -cp loadgen.jar dev.pumaplus.bench.loadgen.DependencyServer PORT K HOLD} (HOLD like "40ms"):
   * serves until killed, printing its counts each second.
   */
  public static void main(String[] args) throws InterruptedException {
    DependencyServer server = new DependencyServer(Integer.parseInt(args[0]), Integer.parseInt(args[1]), Format.parseDuration(args[2]));
    System.out.printf("dependency listening on http://%s/call: %s calls at once, each held %s%n", server.hostPort(), args[1], args[2]);
    Runtime.getRuntime().addShutdownHook(new Thread(server::close));
    while (true) {
      Thread.sleep(1000);
      Counts c = server.counts();
      System.out.printf("in flight %d, completed %d, peak %d%n", c.inFlight(), c.completed(), c.peakInFlight());
    }
  }

  // Everything below runs on the event loop.

  private void arrive(Call call) {
    inFlight++;
    if (inFlight > peakInFlight) peakInFlight = inFlight;
    if (held < concurrency) hold(call); else waiting.addLast(call);
  }

  private void hold(Call call) {
    held++;
    loop.schedule(() -> release(call), holdNs, TimeUnit.NANOSECONDS);
  }

  private void release(Call call) {
    held--;
    inFlight--;
    completed++;
    answer(call.ctx(), call.keepAlive(), HttpResponseStatus.OK, BODY);
    while (!waiting.isEmpty() && held < concurrency) {
      Call next = waiting.pollFirst();
      if (next.ctx().channel().isActive()) {
        hold(next);
      } else {
        inFlight--; // its caller left while it waited: never served, never completed
      }
    }
  }

  private static void answer(ChannelHandlerContext ctx, boolean keepAlive, HttpResponseStatus status, byte[] body) {
    if (!ctx.channel().isActive()) return;
    FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain");
    response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
    HttpUtil.setKeepAlive(response, keepAlive);
    var write = ctx.writeAndFlush(response);
    if (!keepAlive) write.addListener(ChannelFutureListener.CLOSE);
  }

  private final class CallHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
      boolean keepAlive = HttpUtil.isKeepAlive(request);
      String path = request.uri().split("\\?", 2)[0];
      if (path.equals("/call")) {
        arrive(new Call(ctx, keepAlive));
      } else {
        answer(ctx, keepAlive, HttpResponseStatus.NOT_FOUND, NOT_FOUND);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }
}
