// How one request of a bench run ended, as the client saw it; the summary counts every outcome but OK as an
// error.
package dev.pumaplus.bench.loadgen;

public enum Outcome {
  /** A response with a 1xx-3xx status. */
  OK,
  /** A response with a 4xx or 5xx status. */
  HTTP_ERROR,
  /** No complete response within the client timeout, counted from the request's intended start. */
  TIMEOUT,
  /** The connection could not be opened (refused, reset during connect). */
  CONNECT_ERROR,
  /** The connection broke after the request was written, before a complete response. */
  IO_ERROR,
  /** Still outstanding when the run was cut off; never expected (every request times out first). */
  UNFINISHED;

  public boolean isError() {
    return this != OK;
  }
}
