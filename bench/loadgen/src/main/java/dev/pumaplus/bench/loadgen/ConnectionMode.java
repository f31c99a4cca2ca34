// How the generator carries requests to the server (scenario line `connection`): see the transports.
package dev.pumaplus.bench.loadgen;

import java.net.InetSocketAddress;

/** Immutable. {@code size} is the pool's maximum (POOL) or the number of connections (H2); 0 for NEW. */
public record ConnectionMode(Kind kind, int size) {
  public enum Kind { NEW, POOL, H2 }

  public static final ConnectionMode NEW = new ConnectionMode(Kind.NEW, 0);

  /** Parses {@code new}, {@code pool N} or {@code h2 N}. */
  public static ConnectionMode parse(String text) {
    String[] words = text.trim().split("\\s+");
    switch (words[0]) {
      case "new":
        if (words.length != 1) break;
        return NEW;
      case "pool":
      case "h2":
        if (words.length != 2) break;
        int size = Integer.parseInt(words[1]);
        if (size < 1) throw new IllegalArgumentException("connection count must be >= 1: " + text);
        return new ConnectionMode(words[0].equals("pool") ? Kind.POOL : Kind.H2, size);
      default:
        break;
    }
    throw new IllegalArgumentException("connection must be 'new', 'pool N' or 'h2 N', was: " + text);
  }

  Transport open(ClientLoop loop, InetSocketAddress address, long timeoutMs) {
    return switch (kind) {
      case NEW -> new NewConnectionTransport(loop, address, timeoutMs);
      case POOL -> new RouterPoolTransport(loop, address, size, timeoutMs);
      case H2 -> new H2Transport(loop, address, size, timeoutMs);
    };
  }

  @Override
  public String toString() {
    return switch (kind) {
      case NEW -> "new connection per request (HTTP/1.1)";
      case POOL -> "router-like keep-alive pool of up to " + size + " (HTTP/1.1)";
      case H2 -> "HTTP/2 (h2c prior knowledge) over " + size + " connection" + (size == 1 ? "" : "s");
    };
  }
}
