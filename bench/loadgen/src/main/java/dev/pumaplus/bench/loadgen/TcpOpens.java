// Counts TCP connections opened (`Tcp: ActiveOpens` of /proc/net/snmp) around a capacity run, so the report
// can show that the "new connection per request" mode really opened one connection per request.
package dev.pumaplus.bench.loadgen;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Stateless. The counter is the network namespace's, not the client's: connections anyone on the machine
 * opened in the window count too, so the per-request figure is an upper bound (tens of connections against
 * the tens of thousands of requests of a run).
 */
final class TcpOpens {
  private TcpOpens() {}

  /** Active opens (connect() calls that reached SYN-SENT) since boot, now. */
  static long now() throws IOException {
    return parseActiveOpens(Files.readString(Path.of("/proc/net/snmp")));
  }

  /**
   * /proc/net/snmp holds each protocol as two lines, a header of names then the values, both starting with
   * "Tcp:"; this finds ActiveOpens's column in the first and reads it from the second.
   */
  static long parseActiveOpens(String snmp) {
    List<String> tcp = snmp.lines().filter(l -> l.startsWith("Tcp:")).toList();
    if (tcp.size() < 2) throw new IllegalArgumentException("no Tcp: header and values in /proc/net/snmp");
    List<String> names = List.of(tcp.get(0).trim().split("\\s+"));
    String[] values = tcp.get(1).trim().split("\\s+");
    int column = names.indexOf("ActiveOpens");
    if (column < 0 || column >= values.length) throw new IllegalArgumentException("no ActiveOpens in: " + tcp.get(0));
    return Long.parseLong(values[column]);
  }
}
