// How the generator gets a request to the server: a new connection per request, a router-like pool of
// keep-alive connections, or HTTP/2 streams. The generator decides when; a transport only decides over
// which connection.
package dev.pumaplus.bench.loadgen;

/** All methods are called on the generator's event-loop thread. */
public interface Transport extends AutoCloseable {

  /** Sends the exchange's request as soon as a connection allows; ends the exchange on response or error. */
  void submit(Exchange exchange);

  /** Connections currently open (for the report). */
  int openConnections();

  /** Closes every connection; outstanding exchanges end as IO errors. */
  @Override
  void close();
}
