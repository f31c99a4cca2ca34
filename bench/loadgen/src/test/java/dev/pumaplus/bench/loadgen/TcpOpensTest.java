// TcpOpens reads the machine's count of opened TCP connections from /proc/net/snmp on fixed text, finding
// the ActiveOpens column by name (the header line), not by position.
package dev.pumaplus.bench.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class TcpOpensTest {
  private static final String SNMP = """
      Ip: Forwarding DefaultTTL InReceives InHdrErrors
      Ip: 1 64 271839 0
      Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs OutSegs
      Tcp: 1 200 120000 -1 8975 8949 8 4 81 185679 185824
      Udp: InDatagrams NoPorts InErrors OutDatagrams
      Udp: 9 0 0 9
      """;

  @Test
  void activeOpensIsReadFromTheTcpValuesLineByItsHeaderColumn() {
    assertEquals(8975, TcpOpens.parseActiveOpens(SNMP));
  }

  @Test
  void aFileWithoutTheTcpLinesIsAnError() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TcpOpens.parseActiveOpens("Ip: a\nIp: 1\n"));
    assertTrue(e.getMessage().contains("Tcp"), e.getMessage());
  }

  @Test
  void theLiveCounterCanBeRead() throws Exception {
    assertTrue(TcpOpens.now() >= 0);
  }
}
