// One request of a bench run as the client saw it: when it was meant to start, when it was written, when it
// ended and how. These are the rows of the raw per-request CSV and the input of every report.
package dev.pumaplus.bench.loadgen;

/**
 * Times are ns from the run's start on the generator's monotonic clock ({@code System.nanoTime}). Written by
 * the generator's event-loop thread only; read after the run has finished.
 */
public final class RequestRecord {
  /** The load itself, or the health probe that runs beside it. */
  public enum Kind { LOAD, PROBE }

  public final int seq;
  public final Kind kind;
  public final long intendedNs;
  public long sentNs = -1;
  public long doneNs = -1;
  public int status;
  public long bytes;
  public Outcome outcome = Outcome.UNFINISHED;

  public RequestRecord(int seq, Kind kind, long intendedNs) {
    this.seq = seq;
    this.kind = kind;
    this.intendedNs = intendedNs;
  }

  /** Latency from the intended start to the end (response, error or timeout), ns; -1 while unfinished. */
  public long latencyNs() {
    return doneNs < 0 ? -1 : doneNs - intendedNs;
  }

  /** How late the generator wrote the request compared with its intended start, ns; -1 if never written. */
  public long sendLagNs() {
    return sentNs < 0 ? -1 : sentNs - intendedNs;
  }
}
